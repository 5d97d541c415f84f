/// What ``Hub/recover(from:)`` found in the journal.
public struct RecoveryReport: Sendable, Equatable {
    /// Sessions live again, waiting for their players to resume.
    public var resumable = 0
    /// Sessions ended (and saved) at once: goal already reached, or nobody left.
    public var ended = 0
    /// Sessions with nothing to rebuild, dropped from the journal.
    public var discarded = 0
    /// Sessions left in the journal, with the reason (session id → reason).
    public var skipped: [String: String] = [:]

    /// A report with these counts (all zero by default).
    public init(resumable: Int = 0, ended: Int = 0, discarded: Int = 0, skipped: [String: String] = [:]) {
        self.resumable = resumable
        self.ended = ended
        self.discarded = discarded
        self.skipped = skipped
    }
}
