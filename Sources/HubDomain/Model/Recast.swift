/// A correction of a dialog line offered by another participant (or a tutor bot).
public struct Recast: Codable, Sendable, Equatable {
    /// Server-assigned id, unique within the session (`r1`, `r2`, ...).
    public var id: String
    /// The corrected line.
    public var lineId: String
    /// Who offered the correction.
    public var authorId: String
    /// Who spoke the corrected line (the only one who may accept it).
    public var speakerId: String
    /// The corrected text.
    public var correctedText: String
    /// Why, optionally.
    public var explanation: String?
    /// What kind of problems it corrects; never empty, sorted, no duplicates.
    public var issueTypes: [RecastIssueType]
    /// Server time when it was accepted by the hub, epoch milliseconds.
    public var timestamp: Int64
    /// Whether the speaker accepted it.
    public var accepted: Bool

    /// Creates a recast.
    public init(id: String, lineId: String, authorId: String, speakerId: String, correctedText: String,
                explanation: String?, issueTypes: [RecastIssueType], timestamp: Int64, accepted: Bool = false) {
        self.id = id
        self.lineId = lineId
        self.authorId = authorId
        self.speakerId = speakerId
        self.correctedText = correctedText
        self.explanation = explanation
        self.issueTypes = issueTypes
        self.timestamp = timestamp
        self.accepted = accepted
    }
}
