import CSQLite
import Foundation

/// One open SQLite connection. Not thread-safe on its own (opened without SQLite's per-call
/// mutex): ``SQLiteDatabase`` owns it and hands it out only under its lock, for the duration of
/// a closure. Keeps a cache of prepared
/// statements keyed by SQL text.
public final class SQLiteConnection {
    private var handle: OpaquePointer?
    private var cache: [String: SQLiteStatement] = [:]
    /// Statements beyond this many distinct SQL texts are prepared per use, not cached.
    private static let cacheLimit = 128
    /// Whether a transaction begun by ``transaction(_:)`` is open.
    public private(set) var inTransaction = false

    /// SQLite's process-wide settings, applied once, before the first connection opens (the
    /// open initializes SQLite): no memory statistics. The hub reads none, and keeping them
    /// takes a global mutex around every allocation and free (1.3 % of the hub's CPU samples on
    /// the hub-path load, in `sqlite3Malloc` and `sqlite3_free`).
    static let processSettings: Int32 = csqlite_disable_memory_statistics()

    /// Opens (creating if needed) the database file at `path`, with extended result codes,
    /// a 5 s busy timeout and the pragmas ``SQLiteDatabase`` documents.
    init(path: String) throws {
        _ = Self.processSettings
        var db: OpaquePointer?
        // No mutex of SQLite's own per call (SQLITE_OPEN_NOMUTEX): the only owner, SQLiteDatabase,
        // hands the connection out under its lock, one caller at a time, so SQLite's lock would
        // be taken and released around every bind, step and column read for nothing.
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(db)
            throw StorageError("open \(path): \(message) (code \(code))")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 5000)
        do {
            let mode = try query("PRAGMA journal_mode=WAL") { $0.string(0) }.first ?? ""
            guard mode.lowercased() == "wal" else { throw StorageError("open \(path): journal_mode is \(mode), not wal") }
            try execute("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;")
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Finalizes every cached statement and closes the connection. Idempotent.
    func close() {
        cache.removeAll()
        if let handle {
            sqlite3_close_v2(handle)
            self.handle = nil
        }
    }

    private func open() throws(StorageError) -> OpaquePointer {
        guard let handle else { throw StorageError("database is closed") }
        return handle
    }

    /// Runs one or more SQL statements without parameters (schema scripts, pragmas).
    public func execute(_ sql: String) throws(StorageError) {
        let db = try open()
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(db, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
            sqlite3_free(message)
            throw StorageError("\(sql.prefix(60)): \(text) (code \(code))")
        }
    }

    /// Runs one statement with `binds`, discarding rows; returns the number of rows it changed.
    @discardableResult
    public func run(_ sql: String, _ binds: [SQLiteValue] = []) throws -> Int {
        let db = try open()
        try withStatement(sql) { statement in
            try statement.bind(binds)
            while try statement.step() {}
        }
        return Int(sqlite3_changes(db))
    }

    /// Runs one statement once for each set of binds in `rows` (prepared once), discarding rows.
    public func runEach(_ sql: String, _ rows: some Sequence<[SQLiteValue]>) throws {
        try withStatement(sql) { statement in
            for binds in rows {
                try statement.bind(binds)
                while try statement.step() {}
                statement.reset()
            }
        }
    }

    /// Runs one statement with `binds` and maps every row; `row` may stop early by throwing.
    public func query<T>(_ sql: String, _ binds: [SQLiteValue] = [],
                         row: (SQLiteRow) throws -> T) throws -> [T] {
        try withStatement(sql) { statement in
            try statement.bind(binds)
            var rows: [T] = []
            while try statement.step() { rows.append(try row(SQLiteRow(statement: statement))) }
            return rows
        }
    }

    /// Steps through the rows of one statement, calling `visit` for each until it answers false.
    public func forEachRow(_ sql: String, _ binds: [SQLiteValue] = [],
                           _ visit: (SQLiteRow) throws -> Bool) throws {
        try withStatement(sql) { statement in
            try statement.bind(binds)
            while try statement.step() {
                if try !visit(SQLiteRow(statement: statement)) { break }
            }
        }
    }

    /// The first row mapped, or nil when there is none.
    public func queryFirst<T>(_ sql: String, _ binds: [SQLiteValue] = [],
                              row: (SQLiteRow) throws -> T) throws -> T? {
        var result: T?
        try forEachRow(sql, binds) { current in
            result = try row(current)
            return false
        }
        return result
    }

    /// Runs `body` inside `BEGIN IMMEDIATE` ... `COMMIT`; rolls back when `body` or the commit
    /// throws. Transactions do not nest. `BEGIN` and `COMMIT` are cached statements like any
    /// other: the journal opens a transaction up to once a millisecond, and `sqlite3_exec` would
    /// parse both every time.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        guard !inTransaction else { throw StorageError("transactions do not nest") }
        try run("BEGIN IMMEDIATE")
        inTransaction = true
        defer { inTransaction = false }
        do {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            // A failed COMMIT may already have rolled back; a second rollback error is moot.
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// The rowid of the last inserted row.
    public var lastInsertRowID: Int64 {
        handle.map { sqlite3_last_insert_rowid($0) } ?? 0
    }

    /// Hands `body` a prepared statement for `sql` (cached, reset afterwards). A nested use of the
    /// same SQL gets a fresh, uncached statement.
    private func withStatement<T, E: Error>(_ sql: String,
                                            _ body: (SQLiteStatement) throws(E) -> T) throws -> T {
        let db = try open()
        let statement: SQLiteStatement
        if let cached = cache[sql], !cached.inUse {
            statement = cached
        } else if cache[sql] == nil, cache.count < Self.cacheLimit {
            statement = try SQLiteStatement(connection: db, sql: sql, persistent: true)
            cache[sql] = statement
        } else {
            statement = try SQLiteStatement(connection: db, sql: sql, persistent: false)
        }
        statement.inUse = true
        defer {
            statement.reset()
            statement.inUse = false
        }
        return try body(statement)
    }

    /// A ``StorageError`` carrying SQLite's message and result code.
    static func error(_ db: OpaquePointer?, code: Int32, context: String) -> StorageError {
        let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        return StorageError("\(context): \(message) (code \(code))")
    }
}
