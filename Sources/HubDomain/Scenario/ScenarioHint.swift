/// A useful phrase for a role, in the practised language with its translation.
public struct ScenarioHint: Codable, Sendable, Equatable {
    public var roleName: String
    public var textNative: String
    public var textTranslated: String
}
