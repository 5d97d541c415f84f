import HubDomain

/// One participant of an ended session as the PostgreSQL history write sees them: the language
/// their progress counts in and whether their profile is premium (both read from the locked
/// profile row).
struct EndedLearner: Sendable {
    var participant: EndedParticipant
    var language: String
    var isPremium: Bool

    var userId: String { participant.userId }
}
