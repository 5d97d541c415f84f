import Foundation
import HubStorage
import Logging
@testable import HubStoragePostgres
import PostgresNIO
import Testing

/// A fresh PostgreSQL database for one test, on the server named by `SESSIONHUB_TEST_POSTGRES_URL`
/// (scripts/test.sh starts a throw-away one with scripts/postgres.sh). Without that variable the
/// PostgreSQL cases are skipped — unless `SESSIONHUB_REQUIRE_POSTGRES=1` (CI), which fails them.
enum PostgresTestDatabase {
    static let serverURL = ProcessInfo.processInfo.environment["SESSIONHUB_TEST_POSTGRES_URL"]
    static let required = ProcessInfo.processInfo.environment["SESSIONHUB_REQUIRE_POSTGRES"] == "1"

    /// Whether the PostgreSQL cases run (a trait condition).
    static var available: Bool { serverURL != nil || required }

    static let logger: Logger = {
        var logger = Logger(label: "postgres-test")
        logger.logLevel = .warning
        return logger
    }()

    /// Runs `body` with a pool on a new, migrated database, dropped afterwards.
    /// At most this many test databases exist at once: each `CREATE DATABASE` copies and syncs a
    /// template, and dozens at once on a 2-core machine starved the rest of the test run (its
    /// WebSocket integration tests timed out in a CI run of 2026-12-04).
    static let slots = TestSlots(2)

    static func with<T: Sendable>(_ body: (PostgresPool) async throws -> T) async throws -> T {
        await slots.acquire()
        do {
            let result = try await withDatabase(body)
            await slots.release()
            return result
        } catch {
            await slots.release()
            throw error
        }
    }

    private static func withDatabase<T: Sendable>(_ body: (PostgresPool) async throws -> T) async throws -> T {
        guard let serverURL else {
            Issue.record("SESSIONHUB_TEST_POSTGRES_URL is not set, and SESSIONHUB_REQUIRE_POSTGRES=1 requires the PostgreSQL cases")
            throw CancellationError()
        }
        let url = try PostgresURL(serverURL)
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await admin(url) { try await $0.query("CREATE DATABASE \(unescaped: name)", logger: logger) }
        var testURL = url
        testURL.database = name
        let pool = try await PostgresPool.open(testURL, logger: logger)
        do {
            let result = try await body(pool)
            pool.close()
            try await drop(name, url)
            return result
        } catch {
            pool.close()
            try? await drop(name, url)
            throw error
        }
    }

    private static func drop(_ name: String, _ url: PostgresURL) async throws {
        try await admin(url) { try await $0.query("DROP DATABASE IF EXISTS \(unescaped: name) WITH (FORCE)", logger: logger) }
    }

    private static func admin(_ url: PostgresURL, _ body: @Sendable (PostgresConnection) async throws -> Void) async throws {
        var adminURL = url
        adminURL.database = "postgres"
        let connection = try await PostgresConnection.connect(configuration: adminURL.connectionConfiguration,
                                                              id: 1, logger: logger)
        do {
            try await body(connection)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }
}

/// A counting semaphore for tests: `acquire` waits while every slot is taken.
actor TestSlots {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) { free = count }

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
