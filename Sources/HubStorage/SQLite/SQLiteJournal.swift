import Dispatch
import Foundation
import HubDomain
import Synchronization

/// The durable ``HubDomain/SessionJournal`` on SQLite, with group commit.
///
/// ``append(_:)`` encodes the entry, queues it and suspends until it is durable. A committer
/// (on the journal's own serial dispatch queue, or where its ``SQLiteCommitRunner`` says) writes
/// everything queued — across all sessions — in one transaction: an append to an idle journal is committed at once, appends that arrive while a
/// commit runs are gathered into the next one (group commit without a timer). A
/// ``commitInterval`` above zero (default 0) starts at most one commit per interval, trading
/// latency for fewer transactions. When a commit fails, every append in it throws the
/// ``StorageError``.
///
/// Durability is that of the database: in WAL mode with `synchronous=NORMAL`, a committed entry
/// survives a crash or `kill -9` of the process; only an OS crash or power loss can take back the
/// last commits (docs/STORAGE.md).
///
/// Each entry is stored as its broadcast's wire text when it carries it (encoded once, for the
/// members and the journal; read back with the `decoder`), else as JSON mirroring `SessionEvent`
/// (``JournalBody``); its `kind` is also kept in its own column. Rebuild after a restart with ``openSessions()`` and
/// ``entries(sessionId:)``; forget a session with ``remove(sessionId:)`` once it is sealed into
/// history. Call ``close()`` on shutdown: it commits what is queued and refuses later appends.
public final class SQLiteJournal: RecoverableJournal {
    /// A queued row: an entry, a session's header (``opened(_:)``), or the removal of an ended
    /// session's rows (``closed(sessionId:)``).
    private struct Queued: Sendable {
        enum Row: Sendable {
            case entry(seq: Int, timestamp: Int64, kind: String)
            case header(startedAt: Int64)
            case drop
        }

        var sessionId: String
        var row: Row
        var body: [UInt8]
    }

    /// The database the entries go to.
    public let database: SQLiteDatabase
    /// The least time between two commits.
    public let commitInterval: Duration
    private let ownsDatabase: Bool
    /// The checkpointer of a journal in its own file.
    private let checkpointer: SQLiteCheckpointer?
    private let decoder: (any SessionEventDecoder)?
    private let queue: GroupCommitQueue<Queued>
    /// Held by a commit and by the journal's exclusive work, so that no two of them overlap;
    /// holds the position (`pos`) the next entry gets, nil until read from the file.
    private let exclusive = Mutex<Int64?>(nil)
    /// The next position when ``sweepEnded()`` last scanned behind the open sessions to the end.
    private let sweptAt = Mutex<Int64>(0)
    /// Slices ``sweepEnded()`` has deleted rows in (one transaction each), for tests.
    let sweepTransactions = Mutex(0)

    /// A journal on a shared database (recommended: the store's ``SQLiteStore/database``, so the
    /// journal and history writes take turns on one connection instead of polling SQLite's
    /// busy lock).
    /// - Parameters:
    ///   - decoder: reads back entries stored as wire text (``HubDomain/JournalEntry/text``);
    ///     without one, such rows cannot be read.
    ///   - runner: where the commits run (default: a dispatch queue of the journal's own).
    public init(database: SQLiteDatabase, commitInterval: Duration = .zero, decoder: (any SessionEventDecoder)? = nil,
                runner: any SQLiteCommitRunner = DispatchCommitRunner()) {
        self.database = database
        self.queue = GroupCommitQueue(interval: commitInterval, runner: runner)
        self.decoder = decoder
        self.commitInterval = commitInterval
        self.ownsDatabase = false
        self.checkpointer = nil
    }

    /// A journal in a file of its own at `path` (created with ``SQLiteJournalSchema`` if needed;
    /// see ``path(besideStore:)``), so that its commits never wait for another writer's lock.
    /// With a `checkpointInterval` (default 500 ms) a ``SQLiteCheckpointer`` of its own keeps the
    /// WAL in check in the background; with nil, SQLite checkpoints inside commits. ``close()``
    /// stops the checkpointer and closes the file.
    ///
    /// The history writer cannot drop a session's rows here in its own transaction: it marks the
    /// session ended in the store (`ended_sessions`), and ``forgetEnded(in:)`` drops the rows of
    /// marked sessions (at start, before the rebuild, and in the upkeep).
    public init(path: String, commitInterval: Duration = .zero, decoder: (any SessionEventDecoder)? = nil,
                checkpointInterval: Duration? = SQLiteCheckpointer.defaultInterval,
                runner: any SQLiteCommitRunner = DispatchCommitRunner()) throws {
        (database, checkpointer) = try SQLiteCheckpointer.openWriter(path: path, migrations: SQLiteJournalSchema.migrations,
                                                                     interval: checkpointInterval)
        try database.withConnection { try $0.execute("PRAGMA cache_size=-\(Self.pageCacheKiB)") }
        self.queue = GroupCommitQueue(interval: commitInterval, runner: runner)
        self.decoder = decoder
        self.commitInterval = commitInterval
        self.ownsDatabase = true
    }

    /// The page cache of a journal in its own file, in KiB (SQLite's default is 2,000): every
    /// open session's newest page is written at each of its commits, and at a few hundred open
    /// sessions SQLite's default cache no longer held them, so commits read pages back from the
    /// WAL. The cache grows only as far as the journal's pages need.
    public static let pageCacheKiB = 32 * 1024

    /// Where the journal of the store at `storePath` lives: beside it, `-journal.sqlite` in place
    /// of a `.sqlite` ending (`data/sessionhub.sqlite` → `data/sessionhub-journal.sqlite`), else
    /// appended.
    public static func path(besideStore storePath: String) -> String {
        let stem = storePath.hasSuffix(".sqlite") ? String(storePath.dropLast(".sqlite".count)) : storePath
        return stem + "-journal.sqlite"
    }

    /// Appends an entry; returns once its transaction committed. Throws ``StorageError`` when
    /// the commit failed or the journal is closed.
    public func append(_ entry: JournalEntry) async throws {
        let (kind, body) = try JournalBody.encode(entry)
        try await enqueue(entry.sessionId, .entry(seq: entry.seq, timestamp: entry.timestamp, kind: kind), body: body)
    }

    /// Appends entries in one transaction (the next group commit); returns once it committed.
    public func append(contentsOf entries: [JournalEntry]) async throws {
        var rows: [(String, Queued.Row, [UInt8])] = []
        rows.reserveCapacity(entries.count)
        for entry in entries {
            let (kind, body) = try JournalBody.encode(entry)
            rows.append((entry.sessionId, .entry(seq: entry.seq, timestamp: entry.timestamp, kind: kind), body))
        }
        try await enqueue(rows)
    }

    /// Records the session's header (before its first entry), in the next group commit.
    public func opened(_ header: SessionHeader) async throws {
        try await enqueue(header.sessionId, .header(startedAt: header.startedAt), body: Array(try SQLiteStore.encode(header)))
    }

    /// Queues one row and returns once its transaction committed.
    private func enqueue(_ sessionId: String, _ row: Queued.Row, body: [UInt8]) async throws {
        try await enqueue([(sessionId, row, body)])
    }

    /// Queues rows together (the committer takes everything queued, so they share one
    /// transaction) and returns once it committed.
    private func enqueue(_ rows: [(String, Queued.Row, [UInt8])]) async throws {
        try await queue.enqueue(rows.map { Queued(sessionId: $0.0, row: $0.1, body: $0.2) }) {
            self.exclusive.withLock { self.commitPending(&$0) }
        }
    }

    /// Drops the session's header and entries in the next group commit; returns once it
    /// committed. A journal in the store's file has nothing left to drop (the history write did
    /// in its own transaction); one in its own file relies on the store's `ended_sessions` marker
    /// when this fails or a crash comes first (``forgetEnded(in:)``). Never blocks the caller's
    /// thread, and the committer drops in the same transaction as the entries queued with it.
    public func closed(sessionId: String) async {
        try? await enqueue(sessionId, .drop, body: [])
    }

    /// Headers of the sessions not closed, oldest first. Entries left without a header (the
    /// rows of ended sessions not yet in a range delete, the tail of a session sealed into
    /// history while they were queued) are deleted first.
    public func openSessions() async throws -> [SessionHeader] {
        try database.withConnection { db in
            try db.run("DELETE FROM journal WHERE session_id NOT IN (SELECT session_id FROM journal_sessions)")
            return try db.query("SELECT body FROM journal_sessions ORDER BY started_at, session_id") { row in
                try SQLiteStore.decode(SessionHeader.self, from: row.data(0))
            }
        }
    }

    /// The entries of one open session (its header not dropped), in `seq` order: the rows from
    /// its `first_pos` on, read in one pass over the table's tail. A `seq` stored twice (a
    /// write repeated) counts once, as written last.
    public func entries(sessionId: String) throws -> [JournalEntry] {
        try read([sessionId])[sessionId] ?? []
    }

    /// The entries of several open sessions, each in `seq` order, in one pass over the table
    /// from the oldest of their `first_pos` on (a rebuild after a restart reads every open
    /// session this way). Every session with a header is in the result; one without is not.
    public func entries(sessionIds: [String]) async throws -> [String: [JournalEntry]] {
        try read(sessionIds)
    }

    /// ``entries(sessionIds:)``, synchronously.
    private func read(_ sessionIds: [String]) throws -> [String: [JournalEntry]] {
        guard !sessionIds.isEmpty else { return [:] }
        let (opened, rows) = try database.withConnection { db -> ([String], [(String, Int, Int64, Data)]) in
            var firsts: [String: Int64] = [:]
            for sessionId in Set(sessionIds) {
                if let first = try db.queryFirst("SELECT first_pos FROM journal_sessions WHERE session_id = ?",
                                                 [.text(sessionId)], row: { $0.int64(0) }) {
                    firsts[sessionId] = first
                }
            }
            guard let oldest = firsts.values.min() else { return ([], []) }
            var rows: [(String, Int, Int64, Data)] = []
            try db.forEachRow("SELECT session_id, seq, timestamp, body, pos FROM journal WHERE pos >= ? ORDER BY pos",
                              [.integer(oldest)]) { row in
                let sessionId = row.string(0)
                if let first = firsts[sessionId], row.int64(4) >= first {
                    rows.append((sessionId, row.int(1), row.int64(2), row.data(3)))
                }
                return true
            }
            return (Array(firsts.keys), rows)
        }
        var bySession: [String: [Int: JournalEntry]] = Dictionary(uniqueKeysWithValues: opened.map { ($0, [:]) })
        for (sessionId, seq, timestamp, body) in rows {
            let event = try JournalBody.decode(body, decoder: decoder)
            bySession[sessionId, default: [:]][seq] = JournalEntry(sessionId: sessionId, seq: seq, timestamp: timestamp, event: event)
        }
        return bySession.mapValues { entries in entries.keys.sorted().compactMap { entries[$0] } }
    }

    /// The sessions that have journal entries (open, or ended but not yet removed), sorted.
    public func openSessionIds() throws -> [String] {
        try database.withConnection { db in
            try db.query("SELECT DISTINCT session_id FROM journal ORDER BY session_id") { $0.string(0) }
        }
    }

    /// Deletes a session's entries (after it was sealed into history). Commits queued entries
    /// first, so none of them lands after the delete. Must not be called from a commit.
    public func remove(sessionId: String) throws {
        try exclusive.withLock { position in
            commitPending(&position)
            try database.transaction { db in
                try SQLiteJournal.drop(sessionId, db)
            }
        }
    }

    /// Commits what is queued, then refuses further appends (they throw). Closes the database if
    /// the journal opened it. Idempotent.
    public func close() {
        queue.close()
        exclusive.withLock { commitPending(&$0) }
        checkpointer?.close()
        if ownsDatabase { database.close() }
    }

    /// Drops the rows of every session the store at `store` marked ended (its history written or
    /// sealed: ``EndedSessionMarkers``), then the markers that have nothing left to drop; returns
    /// how many sessions it dropped. Run it before ``openSessions()`` at start (a crash between
    /// a history write and ``closed(sessionId:)`` must not rebuild an ended session) and now and
    /// then (a session whose journal was kept). Must not be called from a commit.
    @discardableResult
    public func forgetEnded(in store: SQLiteDatabase) throws -> Int {
        guard store !== database else { return 0 }  // one file: the history write dropped them
        // The markers first, in the store's lock only: the journal's commits never wait for it.
        guard let (newest, ended) = try EndedSessionMarkers.read(from: store) else { return 0 }
        let dropped = try exclusive.withLock { position throws -> Int in
            commitPending(&position)
            return try database.transaction { db -> Int in
                let present = try Set(db.query("SELECT session_id FROM journal_sessions") { $0.string(0) })
                var dropped = 0
                for sessionId in ended where present.contains(sessionId) {
                    try db.run("DELETE FROM journal_sessions WHERE session_id = ?", [.text(sessionId)])
                    dropped += 1
                }
                if dropped > 0 {
                    let next = try position ?? SQLiteJournal.nextPosition(db)
                    try SQLiteJournal.dropOlderThanOpenSessions(next: next, db)
                }
                return dropped
            }
        }
        try EndedSessionMarkers.prune(upTo: newest, in: store)
        return dropped
    }

    /// Every open session with its rows, bytes as stored (after writing what is queued): what
    /// ``LogJournal/importSessions(_:)`` takes when the hub switches journals.
    public func exportSessions() throws -> [ExportedJournalSession] {
        try exclusive.withLock { position throws -> [ExportedJournalSession] in
            commitPending(&position)
            return try database.withConnection { db -> [ExportedJournalSession] in
                var sessions: [String: (first: Int64, session: ExportedJournalSession)] = [:]
                try db.forEachRow("SELECT session_id, started_at, body, first_pos FROM journal_sessions") { row in
                    let session = ExportedJournalSession(sessionId: row.string(0), startedAt: row.int64(1),
                                                         header: Array(row.data(2)), rows: [])
                    sessions[session.sessionId] = (row.int64(3), session)
                    return true
                }
                guard let oldest = sessions.values.map(\.first).min() else { return [] }
                var rows: [String: [Int: ExportedJournalSession.Row]] = [:]
                try db.forEachRow("SELECT session_id, seq, timestamp, kind, body, pos FROM journal WHERE pos >= ? ORDER BY pos",
                                  [.integer(oldest)]) { row in
                    let sessionId = row.string(0)
                    if let first = sessions[sessionId]?.first, row.int64(5) >= first {
                        rows[sessionId, default: [:]][row.int(1)] = .init(seq: row.int(1), timestamp: row.int64(2),
                                                                            kind: row.string(3), body: Array(row.data(4)))
                    }
                    return true
                }
                return sessions.values.map { first, session in
                    var session = session
                    let bySeq = rows[session.sessionId] ?? [:]
                    session.rows = bySeq.keys.sorted().compactMap { bySeq[$0] }
                    return session
                }.sorted { ($0.startedAt, $0.sessionId) < ($1.startedAt, $1.sessionId) }
            }
        }
    }

    /// Writes `sessions` (exported from another journal) in one transaction, after what is
    /// queued, and checkpoints it into the file with its `fsync`s (the caller deletes the other
    /// journal next). A session already here gets its rows again: reads take a repeated `seq`
    /// once.
    public func importSessions(_ sessions: [ExportedJournalSession]) throws {
        guard !sessions.isEmpty else { return }
        try exclusive.withLock { position in
            commitPending(&position)
            position = try database.transaction { db -> Int64 in
                var next = try position ?? SQLiteJournal.nextPosition(db)
                for session in sessions {
                    try SQLiteJournal.writeHeader(session.sessionId, startedAt: session.startedAt, body: Data(session.header),
                                                  firstPosition: next, db)
                    for row in session.rows {
                        try db.run("""
                            INSERT INTO journal (pos, session_id, seq, timestamp, kind, body) VALUES (?, ?, ?, ?, ?, ?)
                            """, [.integer(next), .text(session.sessionId), .int(row.seq), .integer(row.timestamp),
                                  .text(row.kind), .blob(Data(row.body))])
                        next += 1
                    }
                }
                return next
            }
        }
        // A checkpoint of everything, with its fsyncs; the background checkpointer may hold the
        // checkpoint for a moment (busy): then again.
        for attempt in 0..<200 {
            let done = try database.withConnection { db in
                try db.queryFirst("PRAGMA wal_checkpoint(FULL)") { $0.int(0) == 0 && $0.int(1) == $0.int(2) } ?? false
            }
            if done { return }
            if attempt < 199 { usleep(10_000) }
        }
        throw StorageError("journal: the imported sessions could not be checkpointed to the disk (busy for 2 s)")
    }

    /// How far (in positions) the oldest open session's `first_pos` may lie behind the table's
    /// end before ``sweepEnded()`` deletes the ended sessions' rows in between: a session open
    /// for long keeps the range drops of the commits from reaching past it.
    public static let sweepRows: Int64 = 20_000

    /// The most rows one delete covers while commits wait for it: one slice of
    /// ``sweepEnded()``, and the range a commit that drops a session deletes below the open
    /// sessions' `first_pos` (the rest goes with the next drops or sweeps). About 3 ms of
    /// SQLite's work on a small VM; a sweep of 24,670 rows in one delete held every commit for
    /// 108 ms (loadtest/results/journal-sweep-20261129).
    public static let sweepSlice: Int64 = 1_000

    /// Deletes the rows of ended sessions in slices of at most ``sweepSlice`` rows, each a
    /// transaction of its own that first commits what is queued, so appends made meanwhile wait
    /// for one slice at most; returns how many rows it deleted. Run it now and then (the hub's
    /// upkeep). Must not be called from a commit.
    ///
    /// Two parts: every row older than the open sessions' oldest `first_pos` (what the
    /// bounded range drops of the commits left, say after a long session ended on a hub that
    /// then went quiet), always; and the header-less rows behind that `first_pos`, when it lies
    /// more than ``sweepRows`` positions back and half as many were written since the last such
    /// scan.
    @discardableResult
    public func sweepEnded() throws -> Int {
        var deleted = 0
        // Below the floor every row is an ended session's: plain range deletes.
        while case let count = try sweepSlice({ db, next in try SQLiteJournal.dropOlderThanOpenSessions(next: next, db) }),
              count > 0 {
            sweepTransactions.withLock { $0 += 1 }
            deleted += count
        }
        let range = try exclusive.withLock { position throws -> Range<Int64>? in
            commitPending(&position)
            return try database.withConnection { db -> Range<Int64>? in
                let next = try position ?? SQLiteJournal.nextPosition(db)
                guard let floor = try db.queryFirst("SELECT MIN(first_pos) FROM journal_sessions", row: { $0.optionalInt64(0) }) ?? nil,
                      next - floor > Self.sweepRows, next - sweptAt.withLock({ $0 }) > Self.sweepRows / 2 else { return nil }
                return floor..<next
            }
        }
        guard let range else { return deleted }
        var start = range.lowerBound
        while start < range.upperBound {
            let (end, count) = try sweepSlice { db, _ -> (Int64, Int) in
                // At most sweepSlice rows: the slice ends at the row that many past its start.
                let bound = try db.queryFirst("SELECT pos FROM journal WHERE pos >= ? ORDER BY pos LIMIT 1 OFFSET ?",
                                              [.integer(start), .integer(Self.sweepSlice)], row: { $0.int64(0) })
                let end = min(bound ?? range.upperBound, range.upperBound)
                let count = try db.run("""
                    DELETE FROM journal WHERE pos >= ? AND pos < ? AND session_id NOT IN (SELECT session_id FROM journal_sessions)
                    """, [.integer(start), .integer(end)])
                return (end, count)
            }
            sweepTransactions.withLock { $0 += 1 }
            deleted += count
            start = end
        }
        // Only a scan that got through counts: after a slice failed, the next sweep starts over.
        sweptAt.withLock { $0 = range.upperBound }
        return deleted
    }

    /// One slice of ``sweepEnded()``: commits what is queued, then runs `body` (given the next
    /// position) in a transaction of its own, both under the journal's lock.
    private func sweepSlice<T: Sendable>(_ body: (SQLiteConnection, Int64) throws -> T) throws -> T {
        try exclusive.withLock { position throws -> T in
            commitPending(&position)
            return try database.transaction { db -> T in
                try body(db, try position ?? SQLiteJournal.nextPosition(db))
            }
        }
    }

    /// Fault-injection hook for tests: the next `failNextCommits` commits fail (rolled back)
    /// and their appends throw. 0 (the default) in production.
    public var failNextCommits: Int {
        get { queue.failNextCommits }
        set { queue.failNextCommits = newValue }
    }

    /// Appends queued and not yet committed, for metrics and tests.
    public var pendingCount: Int { queue.pendingCount }

    /// Transactions committed so far (one per batch), for metrics and tests.
    public var commitCount: Int { queue.commitCount }

    // MARK: Committer

    /// Takes everything queued and writes it in one transaction; runs holding `exclusive`,
    /// whose `position` it advances.
    private func commitPending(_ position: inout Int64?) {
        guard let batch = queue.take() else { return }
        do {
            position = try database.transaction { db -> Int64 in
                var next = try position ?? SQLiteJournal.nextPosition(db)
                var dropped = false
                for pending in batch.rows {
                    switch pending.row {
                    case .entry(let seq, let timestamp, let kind):
                        // Appended at the table's end, whatever the session. A (session, seq)
                        // written again is a later row that reads win over the earlier one.
                        try db.run("""
                            INSERT INTO journal (pos, session_id, seq, timestamp, kind, body) VALUES (?, ?, ?, ?, ?, ?)
                            """, [.integer(next), .text(pending.sessionId), .int(seq), .integer(timestamp), .text(kind),
                                  .blob(Data(pending.body))])
                        next += 1
                    case .header(let startedAt):
                        try SQLiteJournal.writeHeader(pending.sessionId, startedAt: startedAt, body: Data(pending.body),
                                                      firstPosition: next, db)
                    case .drop:
                        try db.run("DELETE FROM journal_sessions WHERE session_id = ?", [.text(pending.sessionId)])
                        dropped = true
                    }
                }
                if dropped { try SQLiteJournal.dropOlderThanOpenSessions(next: next, db) }
                if batch.inject { throw StorageError("injected journal commit failure (failNextCommits)") }
                return next
            }
            queue.finish(batch, error: nil)
        } catch {
            queue.finish(batch, error: error)
        }
    }

    /// The position the next entry gets in the file behind `db`: past every row, and not before
    /// any open session's `first_pos` (rows of ended sessions may all be gone).
    static func nextPosition(_ db: SQLiteConnection) throws -> Int64 {
        try db.queryFirst("""
            SELECT MAX(COALESCE((SELECT MAX(pos) FROM journal), 0) + 1, COALESCE((SELECT MAX(first_pos) FROM journal_sessions), 1))
            """, row: { $0.int64(0) }) ?? 1
    }

    /// Writes a session's header; a new one gets `firstPosition` (the position its first entry
    /// will have at the earliest), a header written again keeps the one it has, so that its
    /// rows are never below it.
    static func writeHeader(_ sessionId: String, startedAt: Int64, body: Data, firstPosition: Int64,
                            _ db: SQLiteConnection) throws {
        try db.run("""
            INSERT INTO journal_sessions (session_id, started_at, body, first_pos) VALUES (?, ?, ?, ?)
            ON CONFLICT (session_id) DO UPDATE SET started_at = excluded.started_at, body = excluded.body
            """, [.text(sessionId), .integer(startedAt), .blob(body), .integer(firstPosition)])
    }

    /// Deletes the rows older than every open session's `first_pos` (all of them when none is
    /// open, `next` being past the last): the rows of ended sessions, in whole ranges of the
    /// table's first pages, at most ``sweepSlice`` positions (so at most as many rows) from the
    /// oldest row at a time: when a session that was open for long ends, the range behind it
    /// can be large, and the next drops and ``sweepEnded()`` take the rest. Ended sessions' rows
    /// behind an open session's `first_pos` wait for it to end, or for ``sweepEnded()``. Returns
    /// how many rows it deleted.
    @discardableResult
    static func dropOlderThanOpenSessions(next: Int64, _ db: SQLiteConnection) throws -> Int {
        let floor = try db.queryFirst("SELECT MIN(first_pos) FROM journal_sessions", row: { $0.optionalInt64(0) }) ?? nil
        guard let oldest = try db.queryFirst("SELECT MIN(pos) FROM journal", row: { $0.optionalInt64(0) }) ?? nil else { return 0 }
        let end = min(floor ?? next, oldest + sweepSlice)
        guard oldest < end else { return 0 }
        return try db.run("DELETE FROM journal WHERE pos < ?", [.integer(end)])
    }

    /// Deletes a session's header and entries inside the caller's transaction (the journal's
    /// own removal, and the history write that seals the session): a scan of the table, for
    /// rare calls; a journal's commits drop ended sessions by ranges instead.
    static func drop(_ sessionId: String, _ db: SQLiteConnection) throws {
        try db.run("DELETE FROM journal WHERE session_id = ?", [.text(sessionId)])
        try db.run("DELETE FROM journal_sessions WHERE session_id = ?", [.text(sessionId)])
    }
}
