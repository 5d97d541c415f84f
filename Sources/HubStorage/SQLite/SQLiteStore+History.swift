import HubDomain

extension SQLiteStore: HistoryRepository {
    /// The largest page ``getSessions(userId:limit:before:)`` returns; smaller or larger limits
    /// are clamped to 1...100.
    public static let maximumPageSize = 100

    public func getSessions(userId: String, limit: Int, before: Int64?, beforeId: String?) async throws -> HistoryPage {
        let limit = min(max(limit, 1), Self.maximumPageSize)
        let (cursor, binds) = Self.cursor(before: before, beforeId: beforeId)
        return try database.withConnection { db in
            let total = try Self.total(userId, db)
            let rows = try db.query("""
                SELECT session_id, scenario_title, timestamp, target_language, duration_seconds, line_count, xp_earned
                FROM history WHERE user_id = ?\(cursor) ORDER BY timestamp DESC, session_id DESC LIMIT ?
                """, [.text(userId)] + binds + [.int(limit)]) { row in
                HistorySummary(sessionId: row.string(0), scenarioTitle: row.string(1), timestamp: row.int64(2),
                               targetLanguage: row.string(3), durationSeconds: row.int(4), lineCount: row.int(5),
                               xpEarned: row.int(6))
            }
            return HistoryPage(total: total, sessions: rows)
        }
    }

    public func getFullSessions(userId: String, limit: Int, before: Int64?, beforeId: String?) async throws -> HistorySessionPage {
        let limit = min(max(limit, 1), Self.maximumPageSize)
        let (cursor, binds) = Self.cursor(before: before, beforeId: beforeId)
        return try database.withConnection { db in
            let total = try Self.total(userId, db)
            // One query for the page: the index gives the order, each row its body.
            let sessions = try db.query("""
                SELECT body FROM history WHERE user_id = ?\(cursor) ORDER BY timestamp DESC, session_id DESC LIMIT ?
                """, [.text(userId)] + binds + [.int(limit)]) { row in
                try Self.decode(HistorySession.self, from: row.data(0))
            }
            return HistorySessionPage(total: total, sessions: sessions)
        }
    }

    /// The listing's `WHERE` tail for a cursor, and its values.
    private static func cursor(before: Int64?, beforeId: String?) -> (String, [SQLiteValue]) {
        switch (before, beforeId) {
        case (let time?, let id?): return (" AND (timestamp, session_id) < (?, ?)", [.integer(time), .text(id)])
        case (let time?, nil): return (" AND timestamp < ?", [.integer(time)])
        case (nil, _): return ("", [])
        }
    }

    private static func total(_ userId: String, _ db: SQLiteConnection) throws -> Int {
        try db.queryFirst("SELECT total FROM history_counts WHERE user_id = ?", [.text(userId)]) { $0.int(0) } ?? 0
    }

    public func addSession(userId: String, session: HistorySession) async throws -> HistoryAddOutcome {
        try database.transaction { db in
            let stored = try db.queryFirst("SELECT body FROM history WHERE user_id = ? AND session_id = ?",
                                           [.text(userId), .text(session.sessionId)]) { row in
                try Self.decode(HistorySession.self, from: row.data(0))
            }
            // The hub's own sessions are in the progress ledger; the app's never are.
            let byHub = try db.queryFirst("SELECT 1 FROM progress_sessions WHERE user_id = ? AND session_id = ?",
                                          [.text(userId), .text(session.sessionId)]) { _ in true } ?? false
            if byHub { return .recordedByHub(stored) }
            if let stored { return stored == session ? .unchanged(stored) : .conflict(stored) }
            try db.run("""
                INSERT INTO history (user_id, session_id, timestamp, scenario_title, target_language,
                                     duration_seconds, line_count, xp_earned, body)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [
                    .text(userId), .text(session.sessionId), .integer(session.timestamp), .text(session.scenarioTitle),
                    .text(session.targetLanguage), .int(session.durationSeconds), .int(session.dialogLines.count),
                    .int(0), .blob(try Self.encode(session)),  // XP in listings is the hub's own
                ])
            return .created(session)
        }
    }

    public func getSession(userId: String, sessionId: String) async throws -> HistorySession? {
        try database.withConnection { db in
            try db.queryFirst("SELECT body FROM history WHERE user_id = ? AND session_id = ?",
                              [.text(userId), .text(sessionId)]) { row in
                try Self.decode(HistorySession.self, from: row.data(0))
            }
        }
    }

    public func deleteSession(userId: String, sessionId: String) async throws -> Bool {
        try database.withConnection { db in
            try db.run("DELETE FROM history WHERE user_id = ? AND session_id = ?", [.text(userId), .text(sessionId)]) > 0
        }
    }

    public func clear(userId: String) async throws -> Int {
        try database.withConnection { db in
            try db.run("DELETE FROM history WHERE user_id = ?", [.text(userId)])
        }
    }
}
