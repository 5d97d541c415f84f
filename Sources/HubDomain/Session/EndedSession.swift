/// A finished session as handed to the ``HistoryWriter``: everything needed to build each
/// participant's `HistorySession` and to update their progress.
public struct EndedSession: Sendable, Equatable {
    /// The session's id.
    public var sessionId: String
    /// The scenario's id.
    public var scenarioId: String
    /// The scenario's title.
    public var scenarioTitle: String
    /// The scenario's practised language (a user's own current target language may differ).
    public var targetLanguage: String
    /// Whether more than one person could take part (HOST/CLIENT).
    public var multiplayer: Bool
    /// Epoch ms when the session was created.
    public var startedAt: Int64
    /// Epoch ms when it ended.
    public var endedAt: Int64
    /// Why it ended.
    public var cause: EndCause
    /// Whether the scenario's goal was reached.
    public var goalReached: Bool
    /// The full transcript.
    public var lines: [DialogLine]
    /// Every recast, accepted or not.
    public var recasts: [Recast]
    /// Everyone who took part, including those who left early.
    public var participants: [EndedParticipant]
    /// The words of ``lines`` as the live session split them while recording them, if it did:
    /// the review of the participants' words (``SessionVocabulary``) takes them instead of
    /// splitting the transcript again. Derived from ``lines``, so not part of the value's
    /// equality, and not stored (a session read back splits its lines again).
    public var words: SessionWords?

    /// Whole seconds between start and end.
    public var durationSeconds: Int { Int(max(0, endedAt - startedAt) / 1000) }

    /// `result` for every participant, keyed by user id: what a ``HistoryWriter`` returns when one
    /// outcome holds for all of them (a write that failed as a whole, for example).
    public func everyParticipant(_ result: HistoryWriteResult) -> [String: HistoryWriteResult] {
        Dictionary(participants.map { ($0.userId, result) }, uniquingKeysWith: { first, _ in first })
    }

    /// Creates the record.
    public init(sessionId: String, scenarioId: String, scenarioTitle: String, targetLanguage: String,
                multiplayer: Bool, startedAt: Int64, endedAt: Int64, cause: EndCause, goalReached: Bool,
                lines: [DialogLine], recasts: [Recast], participants: [EndedParticipant], words: SessionWords? = nil) {
        self.sessionId = sessionId
        self.scenarioId = scenarioId
        self.scenarioTitle = scenarioTitle
        self.targetLanguage = targetLanguage
        self.multiplayer = multiplayer
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.cause = cause
        self.goalReached = goalReached
        self.lines = lines
        self.recasts = recasts
        self.participants = participants
        self.words = words
    }

    /// Equal records: every field but ``words``, which only caches the split of ``lines``.
    public static func == (lhs: EndedSession, rhs: EndedSession) -> Bool {
        lhs.sessionId == rhs.sessionId && lhs.scenarioId == rhs.scenarioId && lhs.scenarioTitle == rhs.scenarioTitle
            && lhs.targetLanguage == rhs.targetLanguage && lhs.multiplayer == rhs.multiplayer
            && lhs.startedAt == rhs.startedAt && lhs.endedAt == rhs.endedAt && lhs.cause == rhs.cause
            && lhs.goalReached == rhs.goalReached && lhs.lines == rhs.lines && lhs.recasts == rhs.recasts
            && lhs.participants == rhs.participants
    }
}
