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
    private struct Pending: Sendable {
        /// What to write: an entry, a session's header (``opened(_:)``), or the removal of an
        /// ended session's rows (``closed(sessionId:)``).
        enum Row: Sendable {
            case entry(seq: Int, timestamp: Int64, kind: String)
            case header(startedAt: Int64)
            case drop
        }

        var sessionId: String
        var row: Row
        var body: [UInt8]
        /// Resumed once the row's transaction ends; only the last row of a group appended
        /// together carries one (the group is always in one transaction).
        var continuation: CheckedContinuation<Void, any Error>?
    }

    private struct State: Sendable {
        var pending: [Pending] = []
        /// A commit is scheduled on the runner.
        var scheduled = false
        var closed = false
        /// Uptime (ns) when the last commit took its batch.
        var lastCommit: UInt64 = 0
        var failNextCommits = 0
        var commits = 0
    }

    private enum Admission: Sendable {
        case queued
        case schedule(at: UInt64)
        case closed
    }

    /// The database the entries go to.
    public let database: SQLiteDatabase
    /// The least time between two commits.
    public let commitInterval: Duration
    private let intervalNanoseconds: UInt64
    private let ownsDatabase: Bool
    /// The checkpointer of a journal in its own file.
    private let checkpointer: SQLiteCheckpointer?
    private let decoder: (any SessionEventDecoder)?
    private let runner: any SQLiteCommitRunner
    /// Held by a commit and by the journal's exclusive work, so that no two of them overlap.
    private let exclusive = Mutex(())
    private let state = Mutex(State())

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
        self.runner = runner
        self.decoder = decoder
        self.commitInterval = commitInterval
        self.intervalNanoseconds = Self.nanoseconds(commitInterval)
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
        self.runner = runner
        self.decoder = decoder
        self.commitInterval = commitInterval
        self.intervalNanoseconds = Self.nanoseconds(commitInterval)
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
        var rows: [(String, Pending.Row, [UInt8])] = []
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
    private func enqueue(_ sessionId: String, _ row: Pending.Row, body: [UInt8]) async throws {
        try await enqueue([(sessionId, row, body)])
    }

    /// Queues rows together (the committer takes everything queued, so they share one
    /// transaction) and returns once it committed.
    private func enqueue(_ rows: [(String, Pending.Row, [UInt8])]) async throws {
        guard !rows.isEmpty else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            var group = rows.indices.map { index in
                Pending(sessionId: rows[index].0, row: rows[index].1, body: rows[index].2, continuation: nil)
            }
            group[group.count - 1].continuation = continuation
            let admission = state.withLock { state -> Admission in
                if state.closed { return .closed }
                state.pending.append(contentsOf: group)
                if state.scheduled { return .queued }
                state.scheduled = true
                return .schedule(at: state.lastCommit + intervalNanoseconds)
            }
            switch admission {
            case .queued:
                break
            case .closed:
                continuation.resume(throwing: StorageError("journal is closed"))
            case .schedule(let at):
                runner.run(atUptimeNanoseconds: at) { self.exclusive.withLock { _ in self.commitPending() } }
            }
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
    /// tail of a session sealed into history while they were queued) are deleted first.
    public func openSessions() async throws -> [SessionHeader] {
        try database.withConnection { db in
            try db.run("DELETE FROM journal WHERE session_id NOT IN (SELECT session_id FROM journal_sessions)")
            return try db.query("SELECT body FROM journal_sessions ORDER BY started_at, session_id") { row in
                try SQLiteStore.decode(SessionHeader.self, from: row.data(0))
            }
        }
    }

    /// The entries of one session, in `seq` order.
    public func entries(sessionId: String) throws -> [JournalEntry] {
        try database.withConnection { db in
            try db.query("SELECT seq, timestamp, body FROM journal WHERE session_id = ? ORDER BY seq",
                         [.text(sessionId)]) { row in
                let event = try JournalBody.decode(row.data(2), decoder: decoder)
                return JournalEntry(sessionId: sessionId, seq: row.int(0), timestamp: row.int64(1), event: event)
            }
        }
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
        try exclusive.withLock { _ in
            commitPending()
            try database.transaction { db in
                try SQLiteJournal.drop(sessionId, db)
            }
        }
    }

    /// Commits what is queued, then refuses further appends (they throw). Closes the database if
    /// the journal opened it. Idempotent.
    public func close() {
        state.withLock { $0.closed = true }
        exclusive.withLock { _ in commitPending() }
        checkpointer?.close()
        if ownsDatabase { database.close() }
    }

    /// Drops the rows of every session the store at `store` marked ended (its history written or
    /// sealed: ``SQLiteStore``'s `ended_sessions`), then the markers that have nothing left to
    /// drop; returns how many sessions it dropped. Run it before ``openSessions()`` at start (a
    /// crash between a history write and ``closed(sessionId:)`` must not rebuild an ended
    /// session) and now and then (a session whose journal was kept). Must not be called from a
    /// commit.
    ///
    /// Markers are pruned only up to the newest one read before this journal's sessions are
    /// listed: a marker is written after its session's first row, so every older marker whose
    /// session still has rows is in that list, and no session's rows outlive its marker.
    @discardableResult
    public func forgetEnded(in store: SQLiteDatabase) throws -> Int {
        guard store !== database else { return 0 }  // one file: the history write dropped them
        // The markers first, in the store's lock only: the journal's commits never wait for it.
        let (newest, ended) = try store.withConnection { db -> (Int64?, [String]) in
            guard let newest = try db.queryFirst("SELECT MAX(id) FROM ended_sessions", row: { $0.optionalInt64(0) }) ?? nil else {
                return (nil, [])
            }
            return (newest, try db.query("SELECT session_id FROM ended_sessions WHERE id <= ?", [.integer(newest)]) { $0.string(0) })
        }
        guard let newest else { return 0 }
        let dropped = try exclusive.withLock { _ throws -> Int in
            commitPending()
            return try database.transaction { db -> Int in
                let present = try Set(db.query("""
                    SELECT session_id FROM journal_sessions UNION SELECT DISTINCT session_id FROM journal
                    """) { $0.string(0) })
                guard !present.isEmpty else { return 0 }
                var dropped = 0
                for sessionId in ended where present.contains(sessionId) {
                    try SQLiteJournal.drop(sessionId, db)
                    dropped += 1
                }
                return dropped
            }
        }
        try store.transaction { db in
            try db.run("DELETE FROM ended_sessions WHERE id <= ?", [.integer(newest)])
        }
        return dropped
    }

    /// Moves the rows a store's file kept from before the journal had a file of its own (the
    /// hub's schema up to version 5) into this journal, then deletes them there; returns how
    /// many rows moved. Safe to repeat after a crash in between (`INSERT OR REPLACE`). Run it at
    /// start, before ``forgetEnded(in:)``.
    @discardableResult
    public func adoptRows(from store: SQLiteDatabase) throws -> Int {
        guard store !== database else { return 0 }
        let (headers, entries) = try store.withConnection { db in
            let headers = try db.query("SELECT session_id, started_at, body FROM journal_sessions") { row in
                (row.string(0), row.int64(1), row.data(2))
            }
            let entries = try db.query("SELECT session_id, seq, timestamp, kind, body FROM journal") { row in
                (row.string(0), row.int(1), row.int64(2), row.string(3), row.data(4))
            }
            return (headers, entries)
        }
        guard !headers.isEmpty || !entries.isEmpty else { return 0 }
        try exclusive.withLock { _ in
            try database.transaction { db in
                for (sessionId, startedAt, body) in headers {
                    try db.run("INSERT OR REPLACE INTO journal_sessions (session_id, started_at, body) VALUES (?, ?, ?)",
                               [.text(sessionId), .integer(startedAt), .blob(body)])
                }
                for (sessionId, seq, timestamp, kind, body) in entries {
                    try db.run("""
                        INSERT OR REPLACE INTO journal (session_id, seq, timestamp, kind, body) VALUES (?, ?, ?, ?, ?)
                        """, [.text(sessionId), .int(seq), .integer(timestamp), .text(kind), .blob(body)])
                }
            }
        }
        try store.transaction { db in
            try db.run("DELETE FROM journal")
            try db.run("DELETE FROM journal_sessions")
        }
        return headers.count + entries.count
    }

    /// Fault-injection hook for tests: the next `failNextCommits` commits fail (rolled back)
    /// and their appends throw. 0 (the default) in production.
    public var failNextCommits: Int {
        get { state.withLock { $0.failNextCommits } }
        set { state.withLock { $0.failNextCommits = max(0, newValue) } }
    }

    /// Appends queued and not yet committed, for metrics and tests.
    public var pendingCount: Int { state.withLock { $0.pending.count } }

    /// Transactions committed so far (one per batch), for metrics and tests.
    public var commitCount: Int { state.withLock { $0.commits } }

    // MARK: Committer

    /// Takes everything queued and writes it in one transaction; runs holding `exclusive`.
    private func commitPending() {
        let (batch, inject) = state.withLock { state -> ([Pending], Bool) in
            let batch = state.pending
            state.pending.removeAll()
            state.scheduled = false
            guard !batch.isEmpty else { return ([], false) }
            state.lastCommit = DispatchTime.now().uptimeNanoseconds
            let inject = state.failNextCommits > 0
            if inject { state.failNextCommits -= 1 }
            return (batch, inject)
        }
        guard !batch.isEmpty else { return }
        do {
            try database.transaction { db in
                for pending in batch {
                    switch pending.row {
                    case .entry(let seq, let timestamp, let kind):
                        // A repeated (session, seq) replaces the earlier row rather than failing
                        // the whole batch for every other session.
                        try db.run("""
                            INSERT OR REPLACE INTO journal (session_id, seq, timestamp, kind, body) VALUES (?, ?, ?, ?, ?)
                            """, [.text(pending.sessionId), .int(seq), .integer(timestamp), .text(kind),
                                  .blob(Data(pending.body))])
                    case .header(let startedAt):
                        try db.run("INSERT OR REPLACE INTO journal_sessions (session_id, started_at, body) VALUES (?, ?, ?)",
                                   [.text(pending.sessionId), .integer(startedAt), .blob(Data(pending.body))])
                    case .drop:
                        try SQLiteJournal.drop(pending.sessionId, db)
                    }
                }
                if inject { throw StorageError("injected journal commit failure (failNextCommits)") }
            }
            state.withLock { $0.commits += 1 }
            for entry in batch { entry.continuation?.resume() }
        } catch {
            let failure = error as? StorageError ?? StorageError("journal commit: \(error)")
            for entry in batch { entry.continuation?.resume(throwing: failure) }
        }
    }

    /// Deletes a session's header and entries inside the caller's transaction (the journal's
    /// own removal, and the history write that seals the session).
    static func drop(_ sessionId: String, _ db: SQLiteConnection) throws {
        try db.run("DELETE FROM journal WHERE session_id = ?", [.text(sessionId)])
        try db.run("DELETE FROM journal_sessions WHERE session_id = ?", [.text(sessionId)])
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        let total = max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000
        return UInt64(total)
    }
}
