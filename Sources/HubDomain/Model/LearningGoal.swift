/// Why a learner learns, one of the SDK's `learningGoals` values (docs/API.md, "Profile enums").
public enum LearningGoal: String, Codable, Sendable, CaseIterable {
    case travel = "TRAVEL", career = "CAREER", education = "EDUCATION", culture = "CULTURE", family = "FAMILY"
    case relocation = "RELOCATION", exam = "EXAM", hobby = "HOBBY", connectWithPeople = "CONNECT_WITH_PEOPLE"
}
