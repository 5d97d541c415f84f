import Foundation
import HubDomain
import Logging
import HubStorage
import PostgresNIO
import Synchronization

/// Profiles, premium changes, history, progress and learner records in PostgreSQL: the same
/// ports and rules as ``SQLiteStore`` (docs/STORAGE.md), for a cluster whose nodes share them.
///
/// History writes that fail (the database is unreachable) are answered `networkError`, kept in
/// memory and retried by ``retrySealed()``; the session's journal stays open meanwhile, so a
/// node that dies before the retry leaves the session to be rebuilt and ended by another.
public final class PostgresStore: Sendable {
    /// The pool it uses.
    public let pool: PostgresPool
    /// The node writing: a session is written to history only while this node owns it.
    public let nodeId: String
    var logger: Logger { pool.logger }
    private let unsealed = Mutex<[EndedSession]>([])
    private let learnerFailures = Atomic<Int>(0)
    /// Every ended session's write (``save(_:)``, ``retrySealed()``) passes through it.
    let historyGate: WriteGate

    /// How many ended sessions a node writes at once unless told otherwise.
    ///
    /// An ended session's write is the heaviest work a node gives PostgreSQL (a dozen statements,
    /// a review row per word per learner: about 300 rows for four players). When a wave of
    /// sessions ends together, writing them all at once fills both cores of a small machine with
    /// PostgreSQL backends, and the journal commits of the sessions still playing — every line's
    /// latency — compete with them. Two at a time keeps a wave moving (each write takes a few
    /// milliseconds) with less of that (a modest gain in alternated runs: docs/CLUSTER.md);
    /// players of an ended session wait for their `ended` a little longer during a wave, never
    /// their lines.
    public static let defaultHistoryWritesInFlight = 2

    /// A store on `pool` for node `nodeId`.
    /// - Parameter historyWritesInFlight: the most ended sessions written at once (at least 1).
    public init(pool: PostgresPool, nodeId: String,
                historyWritesInFlight: Int = PostgresStore.defaultHistoryWritesInFlight) {
        self.pool = pool
        self.nodeId = nodeId
        self.historyGate = WriteGate(limit: historyWritesInFlight)
    }

    /// Ended sessions waiting in memory for a history write.
    public var unsealedInMemory: Int { unsealed.withLock { $0.count } }

    /// Learner-record reads and writes that failed (they degrade to "nothing known").
    public var learnerRecordFailures: Int { learnerFailures.load(ordering: .relaxed) }

    /// Runs a query on the database; returns the ended sessions waiting in memory for a retry.
    public func probe() async throws -> Int {
        try await pool.client.query("SELECT 1", logger: logger)
        return unsealedInMemory
    }

    func keepUnsealed(_ session: EndedSession) { unsealed.withLock { $0.append(session) } }
    func takeUnsealed() -> [EndedSession] { unsealed.withLock { sessions in defer { sessions.removeAll() }; return sessions } }
    func noteLearnerFailure(_ error: any Error) {
        learnerFailures.add(1, ordering: .relaxed)
        logger.warning("learner records unavailable", metadata: ["error": "\(PostgresPool.describe(error))"])
    }

    static func json<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try SQLiteStore.encode(value), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, json: String) throws -> T {
        try SQLiteStore.decode(type, from: Data(json.utf8))
    }
}
