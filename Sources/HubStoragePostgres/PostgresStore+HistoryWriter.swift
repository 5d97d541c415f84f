import HubDomain
import HubStorage
import PostgresNIO

extension PostgresStore: HistoryWriter {
    /// Saves an ended session in one transaction, as ``SQLiteStore/save(_:)`` does (progress for
    /// everyone, history for premium participants, the journal closed), provided this node still
    /// owns the session. When the transaction fails (or another node owns the session now),
    /// everyone is answered `.error(.networkError)` and nothing is kept; a failure (not a lost
    /// ownership) is retried by ``retrySealed()``.
    public func save(_ session: EndedSession) async -> [String: HistoryWriteResult] {
        do {
            return try await pool.transaction { db in try await self.apply(session, db) }
        } catch {
            if case JournalFailure.fenced? = error as? JournalFailure {
                logger.warning("history not written: another node owns the session", metadata: ["session": "\(session.sessionId)"])
            } else {
                logger.error("history write failed; kept for a retry", metadata: [
                    "session": "\(session.sessionId)", "error": "\(PostgresPool.describe(error))",
                ])
                keepUnsealed(session)
            }
            var results: [String: HistoryWriteResult] = [:]
            for participant in session.participants { results[participant.userId] = .error(.networkError) }
            return results
        }
    }

    /// Writes the sessions kept after a failed write again; returns how many were written.
    @discardableResult
    public func retrySealed() async -> Int {
        var written = 0
        for session in takeUnsealed() {
            do {
                _ = try await pool.transaction { db in try await self.apply(session, db) }
                written += 1
            } catch {
                if case JournalFailure.fenced? = error as? JournalFailure { continue }
                keepUnsealed(session)
            }
        }
        return written
    }

    /// The whole write of one ended session, inside the caller's transaction.
    func apply(_ session: EndedSession, _ db: PostgresConnection) async throws -> [String: HistoryWriteResult] {
        let owners = try await db.query("SELECT owner_node FROM sessions WHERE session_id = \(session.sessionId) FOR UPDATE",
                                        logger: logger)
        for try await owner in owners.decode(String?.self) where owner != nodeId {
            throw JournalFailure.fenced(sessionId: session.sessionId)
        }
        var results: [String: HistoryWriteResult] = [:]
        let vocabulary = SessionVocabulary(session)
        for participant in session.participants {
            let profile: UserProfile
            if let stored = try await Self.loadProfile(db, userId: participant.userId, logger: logger, lock: true) {
                profile = stored
            } else {
                profile = UserProfile.initial(id: participant.userId, displayName: participant.displayName, now: session.endedAt)
                try await Self.writeProfile(db, profile, logger: logger)
            }
            let language = profile.progressLanguage(scenarioLanguage: session.targetLanguage)
            let ledger = try await db.query("""
                INSERT INTO progress_sessions (user_id, session_id) VALUES (\(participant.userId), \(session.sessionId))
                ON CONFLICT DO NOTHING RETURNING 1
                """, logger: logger)
            var firstTime = false
            for try await _ in ledger { firstTime = true }
            if firstTime {
                try await Self.addToProgress(db, userId: participant.userId, language: language, session: session,
                                             participant: participant, vocabulary: vocabulary, logger: logger)
            }
            guard profile.isPremium else {
                results[participant.userId] = .error(.featureLocked)
                continue
            }
            let entry = HistorySession(session, for: participant, language: language)
            let body = try Self.json(entry)
            try await db.query("""
                INSERT INTO history (user_id, session_id, timestamp, scenario_title, target_language,
                                     duration_seconds, line_count, xp_earned, body)
                VALUES (\(participant.userId), \(session.sessionId), \(session.endedAt), \(session.scenarioTitle),
                        \(language), \(session.durationSeconds), \(session.lines.count),
                        \(participant.figures.stats.xpEarned), \(body))
                ON CONFLICT (user_id, session_id) DO UPDATE SET
                    timestamp = excluded.timestamp, scenario_title = excluded.scenario_title,
                    target_language = excluded.target_language, duration_seconds = excluded.duration_seconds,
                    line_count = excluded.line_count, xp_earned = excluded.xp_earned, body = excluded.body
                """, logger: logger)
            results[participant.userId] = .success
        }
        // The session is in history now: it is closed, with its journal and seats, in the same transaction.
        try await PostgresJournal.close(session.sessionId, node: nodeId, db, logger: logger)
        return results
    }
}
