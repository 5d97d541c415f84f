/// A topic a learner likes, one of the SDK's `interests` values (docs/API.md, "Profile enums").
public enum Interest: String, Codable, Sendable, CaseIterable {
    case travel = "TRAVEL", food = "FOOD", business = "BUSINESS", culture = "CULTURE", music = "MUSIC"
    case sports = "SPORTS", movies = "MOVIES", technology = "TECHNOLOGY", science = "SCIENCE", art = "ART"
    case literature = "LITERATURE", history = "HISTORY", nature = "NATURE", gaming = "GAMING"
    case family = "FAMILY", health = "HEALTH", fashion = "FASHION", news = "NEWS"
}
