import Foundation
import HubDomain
import Logging
import HubStorage
import PostgresNIO
import Synchronization

/// The session journal of a cluster node in PostgreSQL, with group commit and fencing.
///
/// ``append(_:)`` queues the entry and suspends until it is durable. Up to
/// ``defaultCommitsInFlight`` commits are in flight at a time, each on its own connection; appends
/// that arrive while all are busy — from every session of this node — go in the next one, as
/// **one multi-row insert** (`INSERT … SELECT … FROM unnest(…)`), committed with the server's
/// `synchronous_commit` (on by default: the commit is on disk when it returns). A session's
/// entries are never in two commits at once, so they become durable in order
/// (``JournalCommitQueue``). No NOTIFY is ever sent from a journal transaction.
///
/// **Fencing.** Each session has an owner node and an epoch (table `sessions`). The journal holds
/// the epoch at which this node owns each of its sessions; the insert joins every row with its
/// session, locking it `FOR SHARE`, and stores only rows whose session this node still owns at
/// that epoch. A row refused that way throws ``HubDomain/JournalFailure/fenced(sessionId:)``:
/// another node adopted the session (a claim bumps the epoch; it passes over a session whose row
/// an insert in flight holds and takes it at a later heartbeat, and a handover waits for it).
/// A row already stored at the same epoch — a retry of a commit whose outcome was lost — counts
/// as written. A commit that fails throws ``HubDomain/JournalFailure/unavailable(_:)``.
public final class PostgresJournal: RecoverableJournal {
    private struct Pending: Sendable {
        var entry: JournalEntry
        var kind: String
        var body: String
        var epoch: Int64
        /// Resumed when the row's commit ends; only the last row of a group appended together
        /// carries one (a group is always in one commit: ``JournalCommitQueue``).
        var continuation: CheckedContinuation<Void, any Error>?
    }

    private struct Key: Hashable {
        var sessionId: String
        var seq: Int64
    }

    /// This node.
    public let nodeId: String
    let pool: PostgresPool
    private let epochs = Mutex<[String: Int64]>([:])
    private let queue: Mutex<JournalCommitQueue<Pending>>
    private let commits = Atomic<Int>(0)
    private let decoder: (any SessionEventDecoder)?
    private let committerExecutor: (any TaskExecutor)?

    /// How many journal commits may be in flight at once unless told otherwise: enough that an
    /// append of a node alone on its database rarely waits for someone else's commit; each has a
    /// connection of its own (``PostgresPool/journalConnections``). Nodes that share a database
    /// with peers do better with one each: their commits queue at the database's one WAL flush.
    public static let defaultCommitsInFlight = 4

    /// A journal for node `nodeId` on `pool`.
    /// - Parameters:
    ///   - decoder: reads back entries stored as their broadcast's wire text
    ///     (``HubDomain/JournalEntry/text``, ``JournalBody``); without one, such rows cannot be read.
    ///   - commitsInFlight: the most commits in flight at once (at least 1; nil: one per
    ///     connection of the pool's journal, ``PostgresPool/journalConnections``).
    ///   - committerExecutor: where the committers run (nil: the global concurrent executor).
    ///     The event loop of the journal's connections and of the sessions that append spares
    ///     every commit its thread switches: the insert is written, its answer read, and the
    ///     appenders resumed on one thread.
    public init(pool: PostgresPool, nodeId: String, decoder: (any SessionEventDecoder)? = nil,
                commitsInFlight: Int? = nil,
                committerExecutor: (any TaskExecutor)? = nil) {
        self.pool = pool
        self.nodeId = nodeId
        self.decoder = decoder
        self.committerExecutor = committerExecutor
        self.queue = Mutex(JournalCommitQueue(maxInFlight: max(1, commitsInFlight ?? pool.journalConnections)))
    }

    /// Transactions committed so far (one per batch), for tests and metrics.
    public var commitCount: Int { commits.load(ordering: .relaxed) }

    /// The epoch at which this node holds `sessionId` (after a claim: the new one).
    public func hold(_ sessionId: String, epoch: Int64) { epochs.withLock { $0[sessionId] = epoch } }

    /// The epoch held for `sessionId`, if any.
    public func heldEpoch(_ sessionId: String) -> Int64? { epochs.withLock { $0[sessionId] } }

    /// Forgets a session (ended, or owned elsewhere now).
    public func forget(_ sessionId: String) { _ = epochs.withLock { $0.removeValue(forKey: sessionId) } }

    // MARK: SessionJournal

    public func opened(_ header: SessionHeader) async throws {
        do {
            let body = try PostgresStore.json(header)
            let rows = try await pool.client.rows(of: PreparedQuery<OpenSession>(
                header.sessionId, header.joinCode, nodeId, header.startedAt, body), logger: pool.logger)
            for row in rows {
                let (owner, epoch) = try row.decode((String?, Int64).self)
                let held = heldEpoch(header.sessionId)
                guard owner == nodeId, held == nil || held == epoch else {
                    throw JournalFailure.fenced(sessionId: header.sessionId)
                }
                hold(header.sessionId, epoch: epoch)
            }
        } catch let failure as JournalFailure {
            throw failure
        } catch {
            throw JournalFailure.unavailable(PostgresPool.describe(error))
        }
    }

    public func append(_ entry: JournalEntry) async throws {
        try await append(contentsOf: [entry])
    }

    /// Appends consecutive entries of one session in one commit (one insert).
    public func append(contentsOf entries: [JournalEntry]) async throws {
        guard let sessionId = entries.first?.sessionId else { return }
        guard let epoch = heldEpoch(sessionId) else { throw JournalFailure.fenced(sessionId: sessionId) }
        var group: [Pending] = []
        group.reserveCapacity(entries.count)
        for entry in entries {
            precondition(entry.sessionId == sessionId, "a group of journal entries belongs to one session")
            let (kind, bytes) = try JournalBody.encode(entry)
            group.append(Pending(entry: entry, kind: kind, body: String(decoding: bytes, as: UTF8.self), epoch: epoch,
                                 continuation: nil))
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            group[group.count - 1].continuation = continuation
            let start = queue.withLock { $0.enqueue(contentsOf: group, session: sessionId) }
            if start { Task(executorPreference: committerExecutor) { await self.commitLoop() } }
        }
    }

    public func closed(sessionId: String) async {
        forget(sessionId)
        do {
            // After a history write (which closed the session in its own transaction) there is
            // nothing to do: one read says so, without a transaction or a commit.
            let isOpen = try await !pool.client.rows(of: PreparedQuery<IsOpenHere>(sessionId, nodeId), logger: pool.logger).isEmpty
            guard isOpen else { return }
            try await pool.transaction { db in
                try await Self.close(sessionId, node: nodeId, db, logger: pool.logger)
            }
        } catch {
            pool.logger.warning("closing a session in the journal failed", metadata: [
                "session": "\(sessionId)", "error": "\(PostgresPool.describe(error))",
            ])
        }
    }

    /// Marks a session closed and drops its journal and seats, inside the caller's transaction
    /// (the history write does it in its own), if `node` still owns it and it is open.
    ///
    /// The session's row is locked first: a journal commit in flight for it (which holds the row
    /// `FOR SHARE`) ends before, so the deletes, which run in one statement with the update and
    /// see the snapshot taken after the lock, see its rows.
    /// - Parameter rowLocked: the caller's transaction holds the row `FOR UPDATE` already.
    static func close(_ sessionId: String, node: String, _ db: PostgresConnection, logger: Logger,
                      rowLocked: Bool = false) async throws {
        if !rowLocked {
            _ = try await db.rows(of: PreparedQuery<LockSession>(sessionId), logger: logger)
        }
        _ = try await db.rows(of: PreparedQuery<CloseSession>(sessionId, node), logger: logger)
    }

    // MARK: Statements (prepared: every session's start and end runs them)

    private enum OpenSession: PreparedSQL {
        static let sql = """
            INSERT INTO sessions (session_id, join_code, owner_node, epoch, open, started_at, header)
            VALUES ($1, $2::text, $3, 1, true, $4, $5)
            ON CONFLICT (session_id) DO UPDATE SET session_id = excluded.session_id
            RETURNING owner_node, epoch
            """
    }

    /// (Found by its key alone, then checked: ``PostgresSchema/openSessionsByOwnerIndex``.)
    enum IsOpenHere: PreparedSQL {
        static let sql = """
            WITH s AS MATERIALIZED (SELECT owner_node, open FROM sessions WHERE session_id = $1)
            SELECT 1 FROM s WHERE owner_node = $2 AND open
            """
    }

    private enum LockSession: PreparedSQL {
        static let sql = "SELECT 1 FROM sessions WHERE session_id = $1 FOR UPDATE"
    }

    /// Closes session $1 if node $2 owns it and it is open, with its journal and seats. (The row
    /// is found by its key alone, then checked: ``PostgresSchema/openSessionsByOwnerIndex``. The
    /// caller holds it `FOR UPDATE` already, so that the deletes' snapshot sees every journal row
    /// committed before; `target` locks it again, so what it read is what the update changes
    /// even without that.)
    enum CloseSession: PreparedSQL {
        static let sql = """
            WITH target AS MATERIALIZED (
                SELECT session_id, owner_node, open FROM sessions WHERE session_id = $1 FOR UPDATE
            ), closed AS (
                UPDATE sessions s SET open = false FROM target t
                WHERE s.session_id = t.session_id AND t.owner_node = $2 AND t.open
                RETURNING s.session_id
            ), journal_gone AS (
                DELETE FROM journal WHERE session_id IN (SELECT session_id FROM closed)
            )
            DELETE FROM seats WHERE session_id IN (SELECT session_id FROM closed)
            """
    }

    // MARK: RecoverableJournal

    public func openSessions() async throws -> [SessionHeader] {
        let rows = try await pool.client.query("""
            SELECT session_id, epoch, header FROM sessions WHERE open AND owner_node = \(nodeId) ORDER BY started_at, session_id
            """, logger: pool.logger)
        var headers: [SessionHeader] = []
        for try await (sessionId, epoch, header) in rows.decode((String, Int64, String).self) {
            hold(sessionId, epoch: epoch)
            headers.append(try PostgresStore.decode(SessionHeader.self, json: header))
        }
        return headers
    }

    public func entries(sessionId: String) async throws -> [JournalEntry] {
        let rows = try await pool.client.query("""
            SELECT seq, timestamp, body FROM journal WHERE session_id = \(sessionId) ORDER BY seq
            """, logger: pool.logger)
        var entries: [JournalEntry] = []
        for try await (seq, timestamp, body) in rows.decode((Int64, Int64, String).self) {
            let event = try JournalBody.decode(body.utf8, decoder: decoder)
            entries.append(JournalEntry(sessionId: sessionId, seq: Int(seq), timestamp: timestamp, event: event))
        }
        return entries
    }

    // MARK: Committer

    /// One committer: takes batches until none is left for it.
    private func commitLoop() async {
        var finished: [String] = []
        while let batch = queue.withLock({ $0.nextBatch(finishing: finished) }) {
            await commit(batch)
            finished = batch.map(\.entry.sessionId)
        }
    }

    private func commit(_ batch: [Pending]) async {
        do {
            let sessions = batch.map(\.entry.sessionId), seqs = batch.map { Int64($0.entry.seq) }
            let epochs = batch.map(\.epoch), times = batch.map(\.entry.timestamp)
            let kinds = batch.map(\.kind), bodies = batch.map(\.body)
            let rows = try await pool.journalClient.rows(of: JournalInsertStatement(
                sessions: sessions, seqs: seqs, epochs: epochs, timestamps: times, kinds: kinds, bodies: bodies,
                node: nodeId), logger: pool.logger)
            var stored = Set<Key>()
            for (sessionId, seq) in rows { stored.insert(Key(sessionId: sessionId, seq: seq)) }
            commits.add(1, ordering: .relaxed)
            let missing = batch.filter { !stored.contains(Key(sessionId: $0.entry.sessionId, seq: Int64($0.entry.seq))) }
            let earlier = missing.isEmpty ? [:] : try await storedEpochs(of: missing)
            // A group succeeds only if every row of it is stored (its rows share session and epoch).
            var refused: Set<String> = []
            for pending in missing where earlier[Key(sessionId: pending.entry.sessionId, seq: Int64(pending.entry.seq))] != pending.epoch {
                refused.insert(pending.entry.sessionId)
            }
            for pending in batch {
                guard let continuation = pending.continuation else { continue }
                if refused.contains(pending.entry.sessionId) {
                    continuation.resume(throwing: JournalFailure.fenced(sessionId: pending.entry.sessionId))
                } else {
                    continuation.resume()
                }
            }
        } catch {
            let failure = JournalFailure.unavailable(PostgresPool.describe(error))
            for pending in batch { pending.continuation?.resume(throwing: failure) }
        }
    }

    /// The epochs at which rows refused by the insert are already stored (a retried write).
    private func storedEpochs(of batch: [Pending]) async throws -> [Key: Int64] {
        let sessions = batch.map(\.entry.sessionId), seqs = batch.map { Int64($0.entry.seq) }
        let rows = try await pool.journalClient.query("""
            SELECT j.session_id, j.seq, j.epoch FROM journal j
            JOIN unnest(\(sessions)::text[], \(seqs)::bigint[]) AS v(session_id, seq) ON j.session_id = v.session_id AND j.seq = v.seq
            """, logger: pool.logger)
        var found: [Key: Int64] = [:]
        for try await (sessionId, seq, epoch) in rows.decode((String, Int64, Int64).self) {
            found[Key(sessionId: sessionId, seq: seq)] = epoch
        }
        return found
    }
}
