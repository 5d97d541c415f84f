/// What a recast corrects: the categories the app's review screen colours.
public enum RecastIssueType: String, Codable, Sendable, CaseIterable, Comparable {
    case grammar
    case naturalness
    case vocabulary
    case sentenceStructure = "sentence_structure"

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
