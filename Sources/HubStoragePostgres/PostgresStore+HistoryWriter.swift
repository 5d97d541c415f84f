import HubDomain
import HubStorage
import PostgresNIO

extension PostgresStore: HistoryWriter {
    /// Saves an ended session in one transaction, as ``SQLiteStore/save(_:)`` does (progress for
    /// everyone, history for premium participants, the journal closed), provided this node still
    /// owns the session; at most ``defaultHistoryWritesInFlight`` (or what the store was given)
    /// at once on this node, the others waiting their turn. When the transaction fails (or another node owns the session now),
    /// everyone is answered `.error(.networkError)` and nothing is kept; a failure (not a lost
    /// ownership) is retried by ``retrySealed()``. Everyone's new words become known words in
    /// the same transaction (``recordsNewWords``).
    public func save(_ session: EndedSession) async -> [String: HistoryWriteResult] {
        do {
            return try await historyGate.run { try await pool.transaction { db in try await self.apply(session, db) } }
        } catch {
            if case JournalFailure.fenced? = error as? JournalFailure {
                logger.warning("history not written: another node owns the session", metadata: ["session": "\(session.sessionId)"])
            } else {
                logger.error("history write failed; kept for a retry", metadata: [
                    "session": "\(session.sessionId)", "error": "\(PostgresPool.describe(error))",
                ])
                keepUnsealed(session)
            }
            return session.everyParticipant(.error(.networkError))
        }
    }

    /// ``save(_:)`` records the participants' new words with their history.
    public var recordsNewWords: Bool { true }

    /// Writes the sessions kept after a failed write again; returns how many were written.
    @discardableResult
    public func retrySealed() async -> Int {
        var written = 0
        for session in takeUnsealed() {
            do {
                _ = try await historyGate.run { try await pool.transaction { db in try await self.apply(session, db) } }
                written += 1
            } catch {
                if case JournalFailure.fenced? = error as? JournalFailure { continue }
                keepUnsealed(session)
            }
        }
        return written
    }

    /// The whole write of one ended session, inside the caller's transaction, in a fixed number
    /// of statements whatever the number of participants: their profiles (created if missing,
    /// then locked), the ledger
    /// that makes a session count once in progress, their progress and word reviews
    /// (``addToProgress(_:_:session:vocabulary:logger:)``), the premium participants' history
    /// entries, everyone's new words, and the session closed with its journal and seats.
    func apply(_ session: EndedSession, _ db: PostgresConnection) async throws -> [String: HistoryWriteResult] {
        for row in try await db.rows(of: PreparedQuery<LockOwner>(session.sessionId), logger: logger)
        where try row.decode(String?.self) != nodeId {
            throw JournalFailure.fenced(sessionId: session.sessionId)
        }
        // A user holds one seat (should one appear twice, their first row counts). Ids in byte
        // order, the order in which every lock below is taken, by every writer.
        var seen = Set<String>()
        let participants = session.participants.filter { seen.insert($0.userId).inserted }
            .sorted { $0.userId.utf8.lexicographicallyPrecedes($1.userId.utf8) }
        let userIds = participants.map(\.userId)
        // A participant without a profile gets the initial one; a profile written meanwhile by
        // someone else is kept (never overwritten). Then every profile is read and locked.
        try await Self.insertProfiles(db, participants.map {
            UserProfile.initial(id: $0.userId, displayName: $0.displayName, now: session.endedAt)
        }, logger: logger)
        let profiles = try await Self.loadProfiles(db, userIds: userIds, logger: logger, lock: true)
        var learners: [EndedLearner] = []
        for participant in participants {
            guard let profile = profiles[participant.userId] else { continue }
            learners.append(EndedLearner(participant: participant, language: profile.progressLanguage(scenarioLanguage: session.targetLanguage),
                                    isPremium: profile.isPremium))
        }

        // The ledger: a session adds to someone's progress once, however often its write is retried.
        var firstTime = Set<String>()
        if !userIds.isEmpty {
            let ledger = try await db.query("""
                INSERT INTO progress_sessions (user_id, session_id) SELECT u, \(session.sessionId) FROM unnest(\(userIds)::text[]) AS u
                ON CONFLICT DO NOTHING RETURNING user_id
                """, logger: logger)
            for try await userId in ledger.decode(String.self) { firstTime.insert(userId) }
        }
        try await Self.addToProgress(db, learners.filter { firstTime.contains($0.userId) }, session: session,
                                     vocabulary: SessionVocabulary(session), logger: logger)

        var results: [String: HistoryWriteResult] = [:]
        for learner in learners { results[learner.userId] = learner.isPremium ? .success : .error(.featureLocked) }
        let premium = learners.filter(\.isPremium)
        if !premium.isEmpty {
            let bodies = try premium.map { try Self.json(HistorySession(session, for: $0.participant, language: $0.language)) }
            try await db.query("""
                INSERT INTO history (user_id, session_id, timestamp, scenario_title, target_language,
                                     duration_seconds, line_count, xp_earned, body)
                SELECT u, \(session.sessionId), \(session.endedAt), \(session.scenarioTitle), l,
                       \(session.durationSeconds), \(session.lines.count), x, b
                FROM unnest(\(premium.map(\.userId))::text[], \(premium.map(\.language))::text[],
                            \(premium.map(\.participant.figures.stats.xpEarned))::bigint[], \(bodies)::text[]) AS t(u, l, x, b)
                ON CONFLICT (user_id, session_id) DO UPDATE SET
                    timestamp = excluded.timestamp, scenario_title = excluded.scenario_title,
                    target_language = excluded.target_language, duration_seconds = excluded.duration_seconds,
                    line_count = excluded.line_count, xp_earned = excluded.xp_earned, body = excluded.body
                """, logger: logger)
        }
        // Everyone's new words, known from now on (one insert, a row per participant under the
        // session's id, in a fixed order).
        var learned: [String: Set<String>] = [:]
        for participant in participants where !participant.newWords.isEmpty { learned[participant.userId] = participant.newWords }
        let knownWords = KnownWordsInsertStatement(learned, language: session.targetLanguage, source: session.sessionId)
        if !knownWords.words.isEmpty { _ = try await db.rows(of: knownWords, logger: logger) }
        // The session is in history now: it is closed, with its journal and seats, in the same transaction.
        try await PostgresJournal.close(session.sessionId, node: nodeId, db, logger: logger, rowLocked: true)
        return results
    }

    /// The owner of session $1, its row locked for the write (prepared: every ended session).
    private enum LockOwner: PreparedSQL {
        static let sql = "SELECT owner_node FROM sessions WHERE session_id = $1 FOR UPDATE"
    }
}
