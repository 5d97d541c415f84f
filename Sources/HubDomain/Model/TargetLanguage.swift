/// A language a learner practises (the SDK's `TargetLanguage`).
public struct TargetLanguage: Codable, Sendable, Equatable {
    /// BCP 47 language tag.
    public var code: String
    /// The learner's level in it.
    public var proficiencyLevel: CEFRLevel
    /// Epoch ms.
    public var startedAt: Int64

    /// Creates an entry.
    public init(code: String, proficiencyLevel: CEFRLevel, startedAt: Int64) {
        self.code = code
        self.proficiencyLevel = proficiencyLevel
        self.startedAt = startedAt
    }
}
