import Foundation
@testable import HubStoragePostgres
import PostgresNIO
import Testing

/// ``PreparedQuery``: names that never clash, values (NULL included) bound in order, and a
/// statement prepared once per connection however often it runs.
@Suite("Prepared queries")
struct PreparedQueryTests {
    enum First {
        enum Lookup: PreparedSQL { static let sql = "SELECT $1::text, $2::text, $3::bigint" }
    }

    enum Second {
        enum Lookup: PreparedSQL { static let sql = "SELECT $1::text, $2::text, $3::bigint + 1" }
    }

    enum LongName {
        enum AStatementWhoseTypeNameIsLongerThanPostgreSQLWouldKeepInOneName: PreparedSQL {
            static let sql = "SELECT 1"
        }
    }

    enum CountThenFail: PreparedSQL { static let sql = "SELECT nextval('prepared_test_calls') / 0" }

    @Test("A statement that fails for another reason than its preparation is not run again unprepared",
          .enabled(if: PostgresTestDatabase.available))
    func onlyPreparationFailuresAreRetried() async throws {
        try await PostgresTestDatabase.with { pool in
            try await pool.client.query("CREATE SEQUENCE prepared_test_calls", logger: pool.logger)
            // Division by zero (SQLSTATE 22012) after the sequence moved: a sequence is not rolled
            // back, so it counts the runs.
            await #expect(throws: PSQLError.self) {
                _ = try await pool.client.rows(of: PreparedQuery<CountThenFail>(), logger: pool.logger)
            }
            // A new sequence shows last_value 1 before any call too: is_called tells them apart.
            var calls: [String] = []
            for try await (value, called) in try await pool.client.query(
                "SELECT last_value, is_called FROM prepared_test_calls", logger: pool.logger).decode((Int64, Bool).self) {
                calls.append("\(value) \(called)")
            }
            #expect(calls == ["1 true"])
        }
    }

    enum InsertNote: PreparedSQL { static let sql = "INSERT INTO prepared_test_notes (note) VALUES ($1) RETURNING note" }

    @Test("A nil bound on the statement's first use leaves the type to the column; later values bind as usual",
          .enabled(if: PostgresTestDatabase.available))
    func nilOnFirstUse() async throws {
        try await PostgresTestDatabase.with { pool in
            try await pool.client.withConnection { db in
                try await db.query("CREATE TEMP TABLE prepared_test_notes (note text)", logger: pool.logger)
                var notes: [String?] = []
                for note in [nil, "first", nil, "second"] as [String?] {
                    for row in try await db.rows(of: PreparedQuery<InsertNote>(note), logger: pool.logger) {
                        notes.append(try row.decode(String?.self))
                    }
                }
                #expect(notes == [nil, "first", nil, "second"])
            }
        }
    }

    @Test("Two texts of the same type name get different names, each within PostgreSQL's 63 bytes")
    func namesAreDistinctAndShort() {
        let first = PreparedQuery<First.Lookup>.name, second = PreparedQuery<Second.Lookup>.name
        #expect(first != second)
        #expect(first.hasPrefix("Lookup_"))
        let long = PreparedQuery<LongName.AStatementWhoseTypeNameIsLongerThanPostgreSQLWouldKeepInOneName>.name
        for name in [first, second, long] { #expect(name.utf8.count <= 63, "\(name)") }
        // The same text always has the same name (each connection prepares it once).
        #expect(PreparedQuery<First.Lookup>.name == first)
    }

    @Test("Values are bound in order, nil as NULL, and the statement is prepared once on its connection",
          .enabled(if: PostgresTestDatabase.available))
    func boundAndPreparedOnce() async throws {
        try await PostgresTestDatabase.with { pool in
            try await pool.client.withConnection { db in
                for round in 1...3 {
                    let note: String? = round == 2 ? nil : "note \(round)"
                    let rows = try await db.rows(of: PreparedQuery<First.Lookup>("user \(round)", note, Int64(round)),
                                                 logger: pool.logger)
                    #expect(rows.count == 1)
                    let (user, decodedNote, number) = try #require(rows.first).decode((String, String?, Int64).self)
                    #expect(user == "user \(round)")
                    #expect(decodedNote == note)
                    #expect(number == Int64(round))
                }
                let other = try await db.rows(of: PreparedQuery<Second.Lookup>("a", "b", Int64(41)), logger: pool.logger)
                let (_, _, next) = try #require(other.first).decode((String, String, Int64).self)
                #expect(next == 42)
                var prepared: [String] = []
                let rows = try await db.query("SELECT name FROM pg_prepared_statements ORDER BY name", logger: pool.logger)
                for try await name in rows.decode(String.self) { prepared.append(name) }
                #expect(prepared == [PreparedQuery<First.Lookup>.name, PreparedQuery<Second.Lookup>.name].sorted())
            }
        }
    }
}
