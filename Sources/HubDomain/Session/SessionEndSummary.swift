/// What every member is told when a session ends.
public struct SessionEndSummary: Sendable, Equatable {
    /// Why the session ended.
    public var cause: EndCause
    /// Epoch ms when it ended.
    public var endedAt: Int64
    /// Whole seconds since the session started.
    public var durationSeconds: Int
    /// Whether the scenario's goal was reached.
    public var goalReached: Bool
    /// Every participant who took part, with final figures.
    public var participants: [ParticipantStats]
    /// History outcome per user id.
    public var history: [String: HistoryWriteResult]
    /// The `id` of the `end` request that ended it, if a participant did.
    public var ref: String?

    /// Creates the summary.
    public init(cause: EndCause, endedAt: Int64, durationSeconds: Int, goalReached: Bool,
                participants: [ParticipantStats], history: [String: HistoryWriteResult], ref: String? = nil) {
        self.cause = cause
        self.endedAt = endedAt
        self.durationSeconds = durationSeconds
        self.goalReached = goalReached
        self.participants = participants
        self.history = history
        self.ref = ref
    }
}
