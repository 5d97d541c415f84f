import HubDomain

/// A journal kept on the node's own disk beside its SQLite store: ``SQLiteJournal`` (the default)
/// or ``LogJournal`` (`serve --journal log`). What the hub's storage does with either at start and
/// in its upkeep, and how open sessions move from one kind to the other.
public protocol LocalJournal: RecoverableJournal {
    /// Drops the sessions the store marked ended (``EndedSessionMarkers``); returns how many.
    @discardableResult
    func forgetEnded(in store: SQLiteDatabase) throws -> Int

    /// Keeps the journal's files small: the SQLite journal's ``SQLiteJournal/sweepEnded()``, the
    /// log's ``LogJournal/compact(limit:)`` (the only place its segments are deleted). Run it in
    /// the upkeep.
    func tidy() throws

    /// Every open session with its rows, bytes as stored.
    func exportSessions() throws -> [ExportedJournalSession]

    /// Writes sessions exported from another journal, durably, after what is queued.
    func importSessions(_ sessions: [ExportedJournalSession]) throws

    /// Writes what is queued, refuses later appends and closes the files.
    func close()
}

extension LocalJournal {
    /// Moves the open sessions the store's file kept from before the journal had a file of its
    /// own (the hub's schema up to version 5) into this journal, then deletes them there; returns
    /// how many sessions moved. Safe to repeat after a crash in between (a row written twice is
    /// read once). Run it at start, before ``forgetEnded(in:)``.
    @discardableResult
    public func adoptRows(from store: SQLiteDatabase) throws -> Int {
        if let shared = self as? SQLiteJournal, shared.database === store { return 0 }  // already there
        let sessions = try SQLiteJournal(database: store).exportSessions()
        guard !sessions.isEmpty else { return 0 }
        try importSessions(sessions)
        try store.transaction { db in
            try db.run("DELETE FROM journal")
            try db.run("DELETE FROM journal_sessions")
        }
        return sessions.count
    }
}

extension SQLiteJournal: LocalJournal {
    public func tidy() throws {
        try sweepEnded()
    }
}

extension LogJournal: LocalJournal {
    public func tidy() throws {
        try compact()
    }
}
