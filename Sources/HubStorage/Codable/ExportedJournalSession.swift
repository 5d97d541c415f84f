/// One open session of a journal as stored: its header and its entries' rows, bytes as they
/// are. What moves a journal's open sessions into a journal of another kind
/// (``SQLiteJournal/exportSessions()``, ``LogJournal/importSessions(_:)`` and back), so that
/// switching `server.journal` between `sqlite` and `log` loses no live session.
public struct ExportedJournalSession: Sendable, Equatable {
    /// One entry's row.
    public struct Row: Sendable, Equatable {
        public var seq: Int
        public var timestamp: Int64
        /// The event's kind (``StoredSessionEvent/Kind`` raw value).
        public var kind: String
        /// ``JournalBody``: the broadcast's wire text, or a stored event.
        public var body: [UInt8]
    }

    public var sessionId: String
    public var startedAt: Int64
    /// The ``HubDomain/SessionHeader`` as JSON.
    public var header: [UInt8]
    /// The entries in `seq` order, each `seq` once.
    public var rows: [Row]
}
