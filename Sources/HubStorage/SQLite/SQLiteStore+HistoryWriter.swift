import HubDomain

extension SQLiteStore: HistoryWriter {
    /// Saves an ended session in one transaction: every participant's progress is updated (in
    /// their profile's current target language, else the scenario's), and each premium
    /// participant gets a ``HistorySession`` (`.success`); free participants get
    /// `.error(.featureLocked)` and nothing in history. A participant without a profile gets a
    /// default (free) one.
    ///
    /// Everyone's ``EndedParticipant/newWords`` become known words in the same transaction
    /// (``recordsNewWords``).
    ///
    /// When the transaction fails, nothing of it is kept, everyone is answered
    /// `.error(.networkError)`, and the session is sealed (`sealed_sessions`) for
    /// ``retrySealed()``.
    public func save(_ session: EndedSession) async -> [String: HistoryWriteResult] {
        do {
            return try writeTransaction { db, reviews in try self.apply(session, db, reviews: &reviews) }
        } catch {
            seal(session, error: error)
            return session.everyParticipant(.error(.networkError))
        }
    }

    /// ``save(_:)`` records the participants' new words with their history.
    public var recordsNewWords: Bool { true }

    /// Writes sealed sessions again (those kept in memory first), deleting each one whose write
    /// succeeds; returns how many were written. Call it at startup and periodically.
    @discardableResult
    public func retrySealed() async -> Int {
        var written = 0
        for session in takeUnsealed() {
            do {
                _ = try writeTransaction { db, reviews in try self.apply(session, db, reviews: &reviews) }
                written += 1
            } catch {
                seal(session, error: error)
            }
        }
        let sealedIds: [String]
        do {
            sealedIds = try database.withConnection { db in
                try db.query("SELECT session_id FROM sealed_sessions ORDER BY rowid") { $0.string(0) }
            }
        } catch {
            return written
        }
        for sessionId in sealedIds {
            do {
                let didWrite = try writeTransaction { db, reviews -> Bool in
                    // Deleting first, in the same transaction, makes a concurrent retry skip it.
                    guard let body = try db.queryFirst("SELECT body FROM sealed_sessions WHERE session_id = ?",
                                                       [.text(sessionId)], row: { $0.data(0) }) else { return false }
                    try db.run("DELETE FROM sealed_sessions WHERE session_id = ?", [.text(sessionId)])
                    let session = try Self.decode(StoredEndedSession.self, from: body).session
                    _ = try self.apply(session, db, reviews: &reviews)
                    return true
                }
                if didWrite { written += 1 }
            } catch {
                _ = try? database.withConnection { db in
                    try db.run("UPDATE sealed_sessions SET attempts = attempts + 1, last_error = ? WHERE session_id = ?",
                               [.text(String(describing: error)), .text(sessionId)])
                }
            }
        }
        return written
    }

    /// Ended sessions waiting for a successful history write (on disk and in memory).
    public func sealedCount() throws -> Int {
        let onDisk = try database.withConnection { db in
            try db.queryFirst("SELECT COUNT(*) FROM sealed_sessions") { $0.int(0) } ?? 0
        }
        return onDisk + unsealedInMemory
    }

    /// The sealed sessions on disk: id, attempts so far and the last error, oldest first.
    public func sealedSessions() throws -> [SealedSessionInfo] {
        try database.withConnection { db in
            try db.query("SELECT session_id, attempts, last_error FROM sealed_sessions ORDER BY rowid") { row in
                SealedSessionInfo(sessionId: row.string(0), attempts: row.int(1), lastError: row.optionalString(2))
            }
        }
    }

    // MARK: Writing

    /// The whole write of one ended session, inside the caller's transaction; the word reviews it
    /// read and wrote are noted in `reviews` (``writeTransaction(_:)``).
    func apply(_ session: EndedSession, _ db: SQLiteConnection,
               reviews: inout WordReviewCache.Changes) throws -> [String: HistoryWriteResult] {
        var results: [String: HistoryWriteResult] = [:]
        let vocabulary = SessionVocabulary(session)
        for participant in session.participants {
            let profile: UserProfile
            if let stored = try Self.loadProfile(db, userId: participant.userId) {
                profile = stored
            } else {
                profile = UserProfile.initial(id: participant.userId, displayName: participant.displayName,
                                              now: session.endedAt)
                try Self.writeProfile(db, profile)
            }
            let language = profile.progressLanguage(scenarioLanguage: session.targetLanguage)
            let firstTime = try db.run("INSERT OR IGNORE INTO progress_sessions (user_id, session_id) VALUES (?, ?)",
                                       [.text(participant.userId), .text(session.sessionId)]) == 1
            if firstTime {
                try addToProgress(db, userId: participant.userId, language: language, session: session,
                                  participant: participant, vocabulary: vocabulary, reviews: &reviews)
            }
            guard profile.isPremium else {
                results[participant.userId] = .error(.featureLocked)
                continue
            }
            let entry = HistorySession(session, for: participant, language: language)
            try db.run("""
                INSERT INTO history (user_id, session_id, timestamp, scenario_title, target_language,
                                     duration_seconds, line_count, xp_earned, body)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (user_id, session_id) DO UPDATE SET
                    timestamp = excluded.timestamp, scenario_title = excluded.scenario_title,
                    target_language = excluded.target_language, duration_seconds = excluded.duration_seconds,
                    line_count = excluded.line_count, xp_earned = excluded.xp_earned, body = excluded.body
                """, [
                    .text(participant.userId), .text(session.sessionId), .integer(session.endedAt),
                    .text(session.scenarioTitle), .text(language), .int(session.durationSeconds),
                    .int(session.lines.count), .int(participant.figures.stats.xpEarned),
                    .blob(try Self.encode(entry)),
                ])
            results[participant.userId] = .success
        }
        try Self.addKnownWords(db, session.participants.map { ($0.userId, $0.newWords) },
                               language: session.targetLanguage, source: session.sessionId, changes: &reviews)
        // The session is in history now: marked ended in the same transaction (its journal goes).
        try Self.markEnded(session.sessionId, db)
        try consumeInjectedFault()
        return results
    }

    /// Keeps a session whose write failed: in `sealed_sessions`, else in memory.
    private func seal(_ session: EndedSession, error: any Error) {
        do {
            let body = try Self.encode(StoredEndedSession(session))
            try database.transaction { db in
                // Sealed, the session is retried from here: marked ended with the same write.
                try Self.markEnded(session.sessionId, db)
                try db.run("""
                    INSERT INTO sealed_sessions (session_id, body, attempts, last_error) VALUES (?, ?, 1, ?)
                    ON CONFLICT (session_id) DO UPDATE SET
                        body = excluded.body, attempts = attempts + 1, last_error = excluded.last_error
                    """, [.text(session.sessionId), .blob(body), .text(String(describing: error))])
            }
        } catch {
            keepUnsealed(session)
        }
    }

    /// Inside the transaction that wrote or sealed the session: records it in `ended_sessions`,
    /// so a journal in its own file drops its rows and never rebuilds it
    /// (``SQLiteJournal/forgetEnded(in:)``), and drops whatever journal rows this file holds (all
    /// of them when the journal shares the file, atomically with the write).
    static func markEnded(_ sessionId: String, _ db: SQLiteConnection) throws {
        try db.run("INSERT OR IGNORE INTO ended_sessions (session_id) VALUES (?)", [.text(sessionId)])
        try SQLiteJournal.drop(sessionId, db)
    }
}
