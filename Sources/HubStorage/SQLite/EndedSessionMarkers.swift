/// The store's record of ended sessions (`ended_sessions`: their history was written or sealed),
/// which a journal in a file of its own reads to drop those sessions' rows after the fact
/// (``SQLiteJournal/forgetEnded(in:)``, ``LogJournal/forgetEnded(in:)``).
///
/// Markers are pruned only up to the newest one read before the journal's sessions are listed: a
/// marker is written after its session's first row, so every older marker whose session still
/// has rows is in that list, and no session's rows outlive its marker.
enum EndedSessionMarkers {
    /// The newest marker's id and the sessions marked up to it; nil when there is none.
    static func read(from store: SQLiteDatabase) throws -> (newest: Int64, sessionIds: [String])? {
        try store.withConnection { db in
            guard let newest = try db.queryFirst("SELECT MAX(id) FROM ended_sessions", row: { $0.optionalInt64(0) }) ?? nil else {
                return nil
            }
            return (newest, try db.query("SELECT session_id FROM ended_sessions WHERE id <= ?", [.integer(newest)]) { $0.string(0) })
        }
    }

    /// Deletes the markers up to `newest` (once the journal dropped their sessions).
    static func prune(upTo newest: Int64, in store: SQLiteDatabase) throws {
        try store.transaction { db in
            try db.run("DELETE FROM ended_sessions WHERE id <= ?", [.integer(newest)])
        }
    }
}
