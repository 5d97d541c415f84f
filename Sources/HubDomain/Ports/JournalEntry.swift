/// One record of a session's journal.
public struct JournalEntry: Sendable, Equatable {
    /// The session.
    public var sessionId: String
    /// The broadcast's sequence number.
    public var seq: Int
    /// Server time, epoch ms.
    public var timestamp: Int64
    /// What happened.
    public var event: SessionEvent

    /// Creates an entry.
    public init(sessionId: String, seq: Int, timestamp: Int64, event: SessionEvent) {
        self.sessionId = sessionId
        self.seq = seq
        self.timestamp = timestamp
        self.event = event
    }
}
