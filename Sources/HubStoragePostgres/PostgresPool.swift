import HubDomain
import Foundation
import Logging
import HubStorage
import NIOCore
import PostgresNIO
import Synchronization

/// The connections to one PostgreSQL database (postgres-nio's `PostgresClient`), running from
/// ``open(_:eventLoopGroup:logger:timeout:)`` until ``shutdown()``, with the schema migrated.
///
/// Two pools: ``client`` (at most ``generalConnections``) for everything but the journal's
/// commits, and ``journalClient`` (``journalConnections``, kept open) for those alone. A wave of
/// ended sessions writing their history holds general connections for many round trips each; the
/// lines of the sessions still playing must not wait behind them for a connection.
public final class PostgresPool: Sendable {
    /// Where it connects (without password in its description).
    public let url: PostgresURL
    /// Profiles, history, progress, the session directory, the journal's reads.
    let client: PostgresClient
    /// The journal's commits (``PostgresJournal``), one connection per commit in flight.
    let journalClient: PostgresClient
    let logger: Logger
    private let runner: Mutex<Task<Void, Never>?>

    /// The most connections of the general pool.
    public static let generalConnections = 16
    /// The connections kept open for the journal's commits: one per commit in flight
    /// (``PostgresJournal``'s committers; by default ``PostgresJournal/defaultCommitsInFlight``).
    public let journalConnections: Int

    /// Settings of the journal's connections, sent when each connects (PostgreSQL 12 or later;
    /// behind PgBouncer, see ``startupParameters``).
    ///
    /// `plan_cache_mode=force_generic_plan`: the group-commit insert (``JournalInsertStatement``)
    /// is prepared once per connection, but PostgreSQL's default (`auto`) compares each call's
    /// custom plan — costed for the batch's actual array length, usually one row — with the
    /// generic one costed for ten, finds the custom one cheaper every time and plans the insert
    /// anew on every commit. Both plans have the same shape (the batch's rows, each joined with
    /// its session by primary key); planning was most of PostgreSQL's time per commit (3.9 s of
    /// planning against 2.1 s of execution over 21,000 commits in the cluster benchmark).
    static let journalStartupParameters = startupParameters + [("plan_cache_mode", "force_generic_plan")]

    /// The longest a statement may run, and a transaction may sit idle, on any of the pools'
    /// connections before PostgreSQL cancels it (`statement_timeout`,
    /// `idle_in_transaction_session_timeout`). A statement stuck behind a lock, or a transaction
    /// a hung node left open with its rows locked, fails with an error after this long instead of
    /// holding a connection (and a history write's place, ``PostgresStore``) for ever; the
    /// caller's usual failure path follows (a journal commit refused, a history write kept for a
    /// retry). Migrations lift it for their own transactions.
    public static let statementTimeout: Duration = .seconds(30)

    /// How long a pooled connection may sit idle before PostgreSQL starts probing it with TCP
    /// keepalives (`tcp_keepalives_idle`; then every ``keepaliveInterval``, giving up after
    /// ``keepaliveProbes`` unanswered probes).
    ///
    /// The pools run **no keep-alive queries** (postgres-nio's `keepAliveBehavior` is off): the
    /// pool arms a keep-alive timer, a child task, on every release of a connection and cancels
    /// it on the next lease, and at 1,600 deliveries/s on one PostgreSQL node that bookkeeping
    /// was 15 % of the node's CPU (314 → 264 µs per delivery, three alternated runs,
    /// docs/CLUSTER.md). The server's TCP keepalives do what the queries were for without any
    /// work on the hub: an idle connection through a NAT or a load balancer still carries a
    /// packet every minute, so its state there does not expire, and the server closes a
    /// connection whose node is gone.
    public static let keepaliveIdle: Duration = .seconds(60)
    /// Between two TCP keepalive probes of an idle connection (`tcp_keepalives_interval`).
    public static let keepaliveInterval: Duration = .seconds(10)
    /// Unanswered probes after which the server drops the connection (`tcp_keepalives_count`).
    public static let keepaliveProbes = 6

    /// Settings of every pooled connection, sent when each connects. (PgBouncer refuses startup
    /// parameters it does not know; listing them in its `ignore_startup_parameters` drops them, so
    /// behind it set them for the hub's role instead: `ALTER ROLE … SET statement_timeout = '30s'`,
    /// and likewise the `tcp_keepalives_*` settings.)
    static let startupParameters: [(String, String)] = [
        ("statement_timeout", milliseconds(statementTimeout)),
        ("idle_in_transaction_session_timeout", milliseconds(statementTimeout)),
        ("tcp_keepalives_idle", "\(keepaliveIdle.components.seconds)"),
        ("tcp_keepalives_interval", "\(keepaliveInterval.components.seconds)"),
        ("tcp_keepalives_count", "\(keepaliveProbes)"),
    ]

    private static func milliseconds(_ duration: Duration) -> String {
        "\(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)"
    }

    private init(url: PostgresURL, client: PostgresClient, journalClient: PostgresClient, journalConnections: Int,
                 logger: Logger, runner: Task<Void, Never>) {
        self.url = url
        self.client = client
        self.journalClient = journalClient
        self.journalConnections = journalConnections
        self.logger = logger
        self.runner = Mutex(runner)
    }

    /// Connects, checks the server answers within `timeout`, and migrates the schema.
    /// - Parameter journalConnections: connections kept open for the journal's commits, one per
    ///   commit in flight (at least 1).
    /// - Parameter eventLoopGroup: where the pool's connections run (each on one loop of the
    ///   group, picked when it connects). The hub passes its own loops, so the database's I/O
    ///   needs no threads of its own; the group must outlive the pool (call ``shutdown()``
    ///   before shutting the group down).
    /// - Throws: ``StorageError`` naming the URL (without its password) and what failed.
    public static func open(_ url: PostgresURL, eventLoopGroup: any EventLoopGroup = PostgresClient.defaultEventLoopGroup,
                            journalConnections: Int = PostgresJournal.defaultCommitsInFlight,
                            logger: Logger, timeout: Duration = .seconds(10)) async throws -> PostgresPool {
        // One direct connection first: a refused connection, a wrong user or a missing database
        // is reported as such at once (the pool would keep retrying in the background).
        do {
            var direct = url.connectionConfiguration
            direct.options.connectTimeout = .seconds(5)
            let connection = try await PostgresConnection.connect(configuration: direct, id: 0, logger: quiet(logger))
            try await connection.close()
        } catch {
            throw StorageError("cannot use the database \(url): \(Self.describe(error))")
        }
        var configuration = url.clientConfiguration
        configuration.options.maximumConnections = generalConnections
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.additionalStartupParameters = startupParameters
        // No keep-alive queries: the server's TCP keepalives instead (``keepaliveIdle``).
        configuration.options.keepAliveBehavior = nil
        var journal = configuration
        let journalConnections = max(1, journalConnections)
        journal.options.minimumConnections = journalConnections
        journal.options.maximumConnections = journalConnections
        journal.options.additionalStartupParameters = journalStartupParameters
        let client = PostgresClient(configuration: configuration, eventLoopGroup: eventLoopGroup, backgroundLogger: quiet(logger))
        let journalClient = PostgresClient(configuration: journal, eventLoopGroup: eventLoopGroup, backgroundLogger: quiet(logger))
        let runner = Task {
            await withDiscardingTaskGroup { group in
                group.addTask { await client.run() }
                group.addTask { await journalClient.run() }
            }
        }
        let database = PostgresPool(url: url, client: client, journalClient: journalClient,
                                    journalConnections: journalConnections, logger: logger, runner: runner)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await client.query("SELECT 1", logger: logger)
                    // The journal's connections too, with their own settings: a server or a
                    // proxy that refuses them fails the start here, not every append later.
                    try await journalClient.query("SHOW plan_cache_mode", logger: logger)
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw StorageError("no answer within \(timeout)")
                }
                try await group.next()
                group.cancelAll()
            }
            try await PostgresMigrator(database: database).migrate()
        } catch {
            // Closed before the caller may shut down the loops the connections run on.
            await database.shutdown()
            throw StorageError("cannot use the database \(url): \(Self.describe(error))")
        }
        return database
    }

    /// postgres-nio's own logging, errors only (its connection attempts are not news).
    private static func quiet(_ logger: Logger) -> Logger {
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .error)
        return quiet
    }

    /// Stops the pool (its connections close in the background).
    public func close() {
        _ = stopRunner()
    }

    /// Stops the pool and returns once its connections are closed.
    public func shutdown() async {
        await stopRunner()?.value
    }

    private func stopRunner() -> Task<Void, Never>? {
        runner.withLock { task in
            defer { task = nil }
            task?.cancel()
            return task
        }
    }

    /// A short, secret-free account of a database error (postgres-nio's own description is
    /// generic on purpose).
    public static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                let state = error.serverInfo?[.sqlState].map { " (\($0))" } ?? ""
                return message + state
            }
            if let underlying = error.underlying { return "\(error.code): \(underlying)" }
            return "\(error.code)"
        }
        return "\(error)"
    }

    /// Runs `body` in one transaction (BEGIN … COMMIT; ROLLBACK when it throws).
    func transaction<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        try await client.withTransaction(logger: logger) { connection in try await body(connection) }
    }
}
