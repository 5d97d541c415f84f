/// One participant's figures for one session, field for field the SDK's `SessionStats`.
public struct SessionStats: Codable, Sendable, Equatable {
    /// The session's id.
    public var sessionId: String
    /// Epoch ms when the participant joined.
    public var startedAt: Int64
    /// Epoch ms when the session ended; nil while it runs.
    public var endedAt: Int64?
    /// How the participant entered the session.
    public var mode: SessionMode
    /// The scenario's id.
    public var scenarioId: String
    /// Lines this participant spoke.
    public var linesSpoken: Int
    /// Distinct words (of the practised language) in the whole transcript.
    public var wordsEncountered: Int
    /// Of those, words this user had never met in this language before.
    public var newVocabulary: Int
    /// Recasts others made of this participant's lines.
    public var errorsDetected: Int
    /// Of those, the ones this participant accepted.
    public var errorsCorrected: Int
    /// The sum of ``xpBreakdown``'s parts.
    public var xpEarned: Int
    /// XP per rule (docs/PROTOCOL.md section 15).
    public var xpBreakdown: XPBreakdown

    /// Creates stats.
    public init(sessionId: String, startedAt: Int64, endedAt: Int64?, mode: SessionMode, scenarioId: String,
                linesSpoken: Int, wordsEncountered: Int, newVocabulary: Int, errorsDetected: Int,
                errorsCorrected: Int, xpEarned: Int, xpBreakdown: XPBreakdown) {
        self.sessionId = sessionId
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.mode = mode
        self.scenarioId = scenarioId
        self.linesSpoken = linesSpoken
        self.wordsEncountered = wordsEncountered
        self.newVocabulary = newVocabulary
        self.errorsDetected = errorsDetected
        self.errorsCorrected = errorsCorrected
        self.xpEarned = xpEarned
        self.xpBreakdown = xpBreakdown
    }
}
