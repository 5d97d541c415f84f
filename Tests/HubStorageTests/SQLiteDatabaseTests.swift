import Foundation
@testable import HubStorage
import Testing

@Suite("SQLite database wrapper")
struct SQLiteDatabaseTests {
    @Test("Typed binds and reads round-trip every storage class")
    func bindsRoundTrip() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let database = try SQLiteDatabase(path: dir.file(), migrations: [])
        try database.withConnection { try $0.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n TEXT)") }
        let text = "Ünïcødé 🚀 with\u{0}nul"
        let blob = Data([0, 1, 2, 255])
        let rows: [SQLiteValue] = [.integer(Int64.max), .real(3.25), .text(text), .blob(blob), .null]
        let second: [SQLiteValue] = [.integer(Int64.min), .real(-0.5), .text(""), .blob(Data()), .text("x")]
        let read = try database.transaction { db in
            try db.run("INSERT INTO t VALUES (?, ?, ?, ?, ?)", rows)
            try db.run("INSERT INTO t VALUES (?, ?, ?, ?, ?)", second)
            return try db.query("SELECT i, r, s, b, n, typeof(s), typeof(b) FROM t ORDER BY rowid") { row in
                [String(row.int64(0)), String(row.double(1)), row.string(2), row.data(3).base64EncodedString(),
                 row.optionalString(4) ?? "<nil>", row.string(5), row.string(6)]
            }
        }
        #expect(read[0] == [String(Int64.max), "3.25", text, blob.base64EncodedString(), "<nil>", "text", "blob"])
        #expect(read[1] == [String(Int64.min), "-0.5", "", "", "x", "text", "blob"])
    }

    @Test("transaction rolls back when its body throws; errors carry SQLite's message")
    func rollback() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let database = try SQLiteDatabase(path: dir.file(), migrations: [])
        try database.withConnection { try $0.execute("CREATE TABLE t (k TEXT PRIMARY KEY)") }
        #expect(throws: StorageError.self) {
            try database.transaction { db in
                try db.run("INSERT INTO t VALUES (?)", [.text("a")])
                try db.run("INSERT INTO t VALUES (?)", [.text("a")])
            }
        }
        let count = try database.withConnection { db in try db.queryFirst("SELECT COUNT(*) FROM t") { $0.int(0) } }
        #expect(count == 0)
        do {
            try database.withConnection { db in try db.run("INSERT INTO missing VALUES (1)") }
            Issue.record("expected an error")
        } catch let error as StorageError {
            #expect(error.message.contains("no such table: missing"))
        }
        #expect(throws: StorageError.self) {
            try database.withConnection { db in try db.run("INSERT INTO t VALUES (?)", []) }
        }
    }

    @Test("A closed database throws instead of crashing")
    func closed() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let database = try SQLiteDatabase(path: dir.file(), migrations: [])
        database.close()
        database.close()
        #expect(throws: StorageError.self) { try database.withConnection { try $0.execute("SELECT 1") } }
    }

    @Test("Opening a path that cannot be a database throws")
    func badPath() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        #expect(throws: StorageError.self) { try SQLiteDatabase(path: dir.path) }
        let garbage = dir.file("garbage.sqlite")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: garbage))
        #expect(throws: StorageError.self) { try SQLiteDatabase(path: garbage) }
    }

    @Test("Nested use of the same statement inside a row callback works")
    func nestedStatements() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let database = try SQLiteDatabase(path: dir.file(), migrations: [])
        let pairs = try database.withConnection { db in
            try db.execute("CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1), (2);")
            return try db.query("SELECT v FROM t ORDER BY v") { outer in
                try db.query("SELECT v FROM t ORDER BY v") { inner in outer.int(0) * 10 + inner.int(0) }
            }
        }
        #expect(pairs == [[11, 12], [21, 22]])
    }
}
