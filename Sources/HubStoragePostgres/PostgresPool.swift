import HubDomain
import Foundation
import Logging
import HubStorage
import PostgresNIO
import Synchronization

/// A pool of connections to one PostgreSQL database (postgres-nio's `PostgresClient`), running
/// from ``open(_:logger:)`` until ``close()``, with the schema migrated.
public final class PostgresPool: Sendable {
    /// Where it connects (without password in its description).
    public let url: PostgresURL
    let client: PostgresClient
    let logger: Logger
    private let runner: Mutex<Task<Void, Never>?>

    private init(url: PostgresURL, client: PostgresClient, logger: Logger, runner: Task<Void, Never>) {
        self.url = url
        self.client = client
        self.logger = logger
        self.runner = Mutex(runner)
    }

    /// Connects, checks the server answers within `timeout`, and migrates the schema.
    /// - Throws: ``StorageError`` naming the URL (without its password) and what failed.
    public static func open(_ url: PostgresURL, logger: Logger, timeout: Duration = .seconds(10)) async throws -> PostgresPool {
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
        configuration.options.maximumConnections = 16
        configuration.options.connectTimeout = .seconds(5)
        let client = PostgresClient(configuration: configuration, backgroundLogger: quiet(logger))
        let runner = Task { await client.run() }
        let database = PostgresPool(url: url, client: client, logger: logger, runner: runner)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await client.query("SELECT 1", logger: logger) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw StorageError("no answer within \(timeout)")
                }
                try await group.next()
                group.cancelAll()
            }
            try await PostgresMigrator(database: database).migrate()
        } catch {
            database.close()
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

    /// Stops the pool (its connections close).
    public func close() {
        runner.withLock { task in
            task?.cancel()
            task = nil
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
