/// The SDK's `ShowTranslations`.
public enum ShowTranslations: String, Codable, Sendable, CaseIterable {
    case always = "ALWAYS", onTap = "ON_TAP", never = "NEVER"
}
