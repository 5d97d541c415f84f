import CSQLite
import Foundation

/// A prepared statement of one ``SQLiteConnection``. Not thread-safe: it is only ever used
/// inside the connection's lock, through ``SQLiteConnection/run(_:_:)`` and
/// ``SQLiteConnection/query(_:_:row:)``.
public final class SQLiteStatement {
    /// SQLite's `SQLITE_TRANSIENT`: SQLite copies bound text and blobs before the bind returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    let handle: OpaquePointer
    private let connection: OpaquePointer
    /// The SQL text, for error messages.
    public let sql: String
    /// Set while a cached statement is in use, so a nested use of the same SQL prepares a fresh one.
    var inUse = false

    init(connection: OpaquePointer, sql: String, persistent: Bool) throws(StorageError) {
        var statement: OpaquePointer?
        let flags: UInt32 = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let code = sqlite3_prepare_v3(connection, sql, -1, flags, &statement, nil)
        guard code == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw SQLiteConnection.error(connection, code: code, context: "prepare \(sql.prefix(60))")
        }
        self.handle = statement
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds `values` to parameters 1, 2, ... (earlier bindings are cleared first).
    public func bind(_ values: [SQLiteValue]) throws(StorageError) {
        sqlite3_clear_bindings(handle)
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard values.count == expected else {
            throw StorageError("bind: \(values.count) values for \(expected) parameters in \(sql.prefix(60))")
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .integer(let number):
                code = sqlite3_bind_int64(handle, index, number)
            case .real(let number):
                code = sqlite3_bind_double(handle, index, number)
            case .null:
                code = sqlite3_bind_null(handle, index)
            case .text(let string):
                var string = string
                code = string.withUTF8 { bytes in
                    // An empty buffer may have no base address; bind a real empty string, not NULL.
                    guard let base = bytes.baseAddress, bytes.count > 0 else {
                        return sqlite3_bind_text(handle, index, "", 0, Self.transient)
                    }
                    return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                        sqlite3_bind_text(handle, index, $0, Int32(bytes.count), Self.transient)
                    }
                }
            case .blob(let data):
                code = data.withUnsafeBytes { bytes in
                    guard let base = bytes.baseAddress, bytes.count > 0 else {
                        return sqlite3_bind_zeroblob(handle, index, 0)
                    }
                    return sqlite3_bind_blob(handle, index, base, Int32(bytes.count), Self.transient)
                }
            }
            guard code == SQLITE_OK else {
                throw SQLiteConnection.error(connection, code: code, context: "bind \(index) in \(sql.prefix(60))")
            }
        }
    }

    /// Advances to the next row: true when a row is available, false when done.
    public func step() throws(StorageError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteConnection.error(connection, code: code, context: "step \(sql.prefix(60))")
        }
    }

    /// Makes the statement ready to run again and releases its bound values.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }
}
