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
    /// The broadcast as members received it (``EncodedEvent/journalText``), which a journal
    /// stores as is; nil when the journal must encode `event` itself. Entries read back from a
    /// journal carry nil.
    public var text: [UInt8]?

    /// Creates an entry.
    public init(sessionId: String, seq: Int, timestamp: Int64, event: SessionEvent, text: [UInt8]? = nil) {
        self.sessionId = sessionId
        self.seq = seq
        self.timestamp = timestamp
        self.event = event
        self.text = text
    }
}
