extension SQLiteStore: HistoryRepository {
    /// The largest page ``getSessions(userId:limit:before:)`` returns; smaller or larger limits
    /// are clamped to 1...100.
    public static let maximumPageSize = 100

    public func getSessions(userId: String, limit: Int, before: Int64?) async throws -> HistoryPage {
        let limit = min(max(limit, 1), Self.maximumPageSize)
        return try database.withConnection { db in
            let total = try db.queryFirst("SELECT total FROM history_counts WHERE user_id = ?", [.text(userId)]) {
                $0.int(0)
            } ?? 0
            let columns = """
                SELECT session_id, scenario_title, timestamp, target_language, duration_seconds, line_count, xp_earned
                FROM history
                """
            let rows: [HistorySummary]
            let map = { (row: SQLiteRow) in
                HistorySummary(sessionId: row.string(0), scenarioTitle: row.string(1), timestamp: row.int64(2),
                               targetLanguage: row.string(3), durationSeconds: row.int(4), lineCount: row.int(5),
                               xpEarned: row.int(6))
            }
            if let before {
                rows = try db.query(columns + """
                     WHERE user_id = ? AND timestamp < ? ORDER BY timestamp DESC, session_id DESC LIMIT ?
                    """, [.text(userId), .integer(before), .int(limit)], row: map)
            } else {
                rows = try db.query(columns + """
                     WHERE user_id = ? ORDER BY timestamp DESC, session_id DESC LIMIT ?
                    """, [.text(userId), .int(limit)], row: map)
            }
            return HistoryPage(total: total, sessions: rows)
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
