import Foundation
import HubDomain
@testable import HubStorage
@testable import HubStoragePostgres
import PostgresNIO
import Testing

/// What the store tests run against: the embedded SQLite store, and the PostgreSQL store (when
/// a test server is configured, see ``PostgresTestDatabase``). Both implement the same ports
/// with the same rules, so the same tests hold for both.
enum StoreBackend: String, Sendable, CustomTestStringConvertible {
    case sqlite, postgresql

    /// SQLite always; PostgreSQL when configured (or required).
    static var all: [StoreBackend] { PostgresTestDatabase.available ? [.sqlite, .postgresql] : [.sqlite] }

    var testDescription: String { rawValue }

    /// Runs `body` on a fresh, empty store.
    func with(_ body: (any TestStore) async throws -> Void) async throws {
        switch self {
        case .sqlite:
            let dir = try TemporaryDirectory()
            defer { dir.remove() }
            let store = try SQLiteStore(path: dir.file())
            try await body(store)
            store.close()
        case .postgresql:
            try await PostgresTestDatabase.with { pool in
                let store = PostgresStore(pool: pool, nodeId: "n1")
                try await body(store)
            }
        }
    }
}

/// Every port a store implements, plus two helpers for the tests.
protocol TestStore: ProfileRepository, HistoryRepository, ProgressRepository, HistoryWriter, LearnerRecords {
    /// Rows in a table, for checking that nothing was written.
    func count(_ table: String) async throws -> Int
    /// Learner-record reads and writes that failed.
    var learnerRecordFailures: Int { get }
    /// Runs one SQL statement (to plant rows an older version could have written).
    func execute(_ sql: String) async throws
    /// Every known word as stored, a word stored twice counted twice: a repeated write that
    /// doubled words shows here (reads merge them, so ``knownWords(userId:language:)`` cannot).
    func storedKnownWords() async throws -> Int
}

extension TestStore {
    /// Makes `userId` premium (as the operator API would).
    func makePremium(_ userId: String) async throws {
        _ = try await setPremium(userId: userId, isPremium: true, actor: "test-admin", at: 1)
    }
}

extension SQLiteStore: TestStore {
    func execute(_ sql: String) async throws {
        try database.withConnection { try $0.execute(sql) }
    }

    /// The words of every set (schema version 9) and the rows of `known_words` (before it).
    func storedKnownWords() async throws -> Int {
        try database.withConnection { db in
            try db.queryFirst("""
                SELECT (SELECT coalesce(sum(json_array_length(words)), 0) FROM known_word_sets)
                     + (SELECT count(*) FROM known_words)
                """) { $0.int(0) } ?? 0
        }
    }
}

extension PostgresStore: TestStore {
    func execute(_ sql: String) async throws {
        try await pool.client.query(PostgresQuery(unsafeSQL: sql), logger: logger)
    }

    func count(_ table: String) async throws -> Int {
        try await integer("SELECT count(*) FROM \(table)")
    }

    /// The words of every set (schema version 6) and the rows of `known_words` (before it).
    func storedKnownWords() async throws -> Int {
        try await integer("""
            SELECT (SELECT coalesce(sum(cardinality(words)), 0) FROM known_word_sets)::bigint
                 + (SELECT count(*) FROM known_words)
            """)
    }

    private func integer(_ sql: String) async throws -> Int {
        var value = 0
        for try await row in try await pool.client.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(Int.self) {
            value = row
        }
        return value
    }
}
