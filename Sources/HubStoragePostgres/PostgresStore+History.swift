import HubDomain
import HubStorage
import Logging
import PostgresNIO

extension PostgresStore: HistoryRepository {
    public func getSessions(userId: String, limit: Int, before: Int64?, beforeId: String?) async throws -> HistoryPage {
        let limit = min(max(limit, 1), SQLiteStore.maximumPageSize)
        return try await pool.client.withConnection { db in
            let total = try await Self.total(userId, db, logger: logger)
            // The cursor as one row comparison: no text is below "", so without beforeId this is
            // timestamp < before; without before, every entry.
            let rows = try await db.query("""
                SELECT session_id, scenario_title, timestamp, target_language, duration_seconds, line_count, xp_earned
                FROM history WHERE user_id = \(userId)
                  AND (timestamp, session_id) < (\(before ?? Int64.max), \(beforeId ?? ""))
                ORDER BY timestamp DESC, session_id DESC LIMIT \(limit)
                """, logger: logger)
            var sessions: [HistorySummary] = []
            for try await (id, title, time, language, duration, lines, xp)
                in rows.decode((String, String, Int64, String, Int, Int, Int).self) {
                sessions.append(HistorySummary(sessionId: id, scenarioTitle: title, timestamp: time, targetLanguage: language,
                                               durationSeconds: duration, lineCount: lines, xpEarned: xp))
            }
            return HistoryPage(total: total, sessions: sessions)
        }
    }

    public func getFullSessions(userId: String, limit: Int, before: Int64?, beforeId: String?) async throws -> HistorySessionPage {
        let limit = min(max(limit, 1), SQLiteStore.maximumPageSize)
        return try await pool.client.withConnection { db in
            let total = try await Self.total(userId, db, logger: logger)
            // One query for the page: the index gives the order, each row its body.
            let rows = try await db.query("""
                SELECT body FROM history WHERE user_id = \(userId)
                  AND (timestamp, session_id) < (\(before ?? Int64.max), \(beforeId ?? ""))
                ORDER BY timestamp DESC, session_id DESC LIMIT \(limit)
                """, logger: logger)
            var sessions: [HistorySession] = []
            for try await body in rows.decode(String.self) { sessions.append(try Self.decode(HistorySession.self, json: body)) }
            return HistorySessionPage(total: total, sessions: sessions)
        }
    }

    private static func total(_ userId: String, _ db: PostgresConnection, logger: Logger) async throws -> Int {
        var total = 0
        for try await count in try await db.query("SELECT count(*) FROM history WHERE user_id = \(userId)",
                                                   logger: logger).decode(Int.self) {
            total = count
        }
        return total
    }

    public func addSession(userId: String, session: HistorySession) async throws -> HistoryAddOutcome {
        let body = try Self.json(session)
        return try await pool.transaction { db in
            // The hub's own sessions are in the progress ledger; the app's never are.
            var byHub = false
            for try await _ in try await db.query("""
                SELECT 1 FROM progress_sessions WHERE user_id = \(userId) AND session_id = \(session.sessionId)
                """, logger: logger) { byHub = true }
            if !byHub {
                var inserted = false
                for try await _ in try await db.query("""
                    INSERT INTO history (user_id, session_id, timestamp, scenario_title, target_language,
                                         duration_seconds, line_count, xp_earned, body)
                    VALUES (\(userId), \(session.sessionId), \(session.timestamp), \(session.scenarioTitle),
                            \(session.targetLanguage), \(session.durationSeconds), \(session.dialogLines.count),
                            0, \(body))
                    ON CONFLICT (user_id, session_id) DO NOTHING RETURNING 1
                    """, logger: logger) { inserted = true }
                if inserted { return .created(session) }
            }
            var stored: HistorySession?
            for try await text in try await db.query("""
                SELECT body FROM history WHERE user_id = \(userId) AND session_id = \(session.sessionId)
                """, logger: logger).decode(String.self) {
                stored = try Self.decode(HistorySession.self, json: text)
            }
            if byHub { return .recordedByHub(stored) }
            guard let stored else { throw StorageError("history entry neither inserted nor found") }
            return stored == session ? .unchanged(stored) : .conflict(stored)
        }
    }

    public func getSession(userId: String, sessionId: String) async throws -> HistorySession? {
        let rows = try await pool.client.query(
            "SELECT body FROM history WHERE user_id = \(userId) AND session_id = \(sessionId)", logger: logger)
        for try await body in rows.decode(String.self) { return try Self.decode(HistorySession.self, json: body) }
        return nil
    }

    public func deleteSession(userId: String, sessionId: String) async throws -> Bool {
        let rows = try await pool.client.query(
            "DELETE FROM history WHERE user_id = \(userId) AND session_id = \(sessionId) RETURNING 1", logger: logger)
        var deleted = false
        for try await _ in rows { deleted = true }
        return deleted
    }

    public func clear(userId: String) async throws -> Int {
        let rows = try await pool.client.query("DELETE FROM history WHERE user_id = \(userId) RETURNING 1", logger: logger)
        var count = 0
        for try await _ in rows { count += 1 }
        return count
    }
}
