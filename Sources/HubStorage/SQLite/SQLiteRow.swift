import CSQLite
import Foundation

/// The current row of a stepping ``SQLiteStatement``; valid only inside the closure it is
/// handed to. Columns are numbered from 0.
public struct SQLiteRow {
    private let statement: SQLiteStatement

    init(statement: SQLiteStatement) { self.statement = statement }

    /// The number of columns.
    public var count: Int { Int(sqlite3_column_count(statement.handle)) }

    /// Whether the column is `NULL`.
    public func isNull(_ column: Int) -> Bool {
        sqlite3_column_type(statement.handle, Int32(column)) == SQLITE_NULL
    }

    /// The column as an integer (0 for `NULL`).
    public func int64(_ column: Int) -> Int64 { sqlite3_column_int64(statement.handle, Int32(column)) }

    /// The column as an `Int` (0 for `NULL`).
    public func int(_ column: Int) -> Int { Int(truncatingIfNeeded: int64(column)) }

    /// The column as a Boolean (non-zero is true).
    public func bool(_ column: Int) -> Bool { int64(column) != 0 }

    /// The column as a floating-point number (0 for `NULL`).
    public func double(_ column: Int) -> Double { sqlite3_column_double(statement.handle, Int32(column)) }

    /// The column as text, or nil for `NULL`.
    public func optionalString(_ column: Int) -> String? {
        if isNull(column) { return nil }
        return string(column)
    }

    /// The column as text ("" for `NULL`).
    public func string(_ column: Int) -> String {
        // Ask for the text first, then its length (SQLite's documented order).
        guard let text = sqlite3_column_text(statement.handle, Int32(column)) else { return "" }
        let length = Int(sqlite3_column_bytes(statement.handle, Int32(column)))
        return String(decoding: UnsafeBufferPointer(start: text, count: length), as: UTF8.self)
    }

    /// The column as an integer, or nil for `NULL`.
    public func optionalInt64(_ column: Int) -> Int64? {
        isNull(column) ? nil : int64(column)
    }

    /// The column as bytes (empty for `NULL`).
    public func data(_ column: Int) -> Data {
        guard let bytes = sqlite3_column_blob(statement.handle, Int32(column)) else { return Data() }
        let length = Int(sqlite3_column_bytes(statement.handle, Int32(column)))
        return Data(bytes: bytes, count: length)
    }

    /// Calls `body` with the column's bytes (empty for `NULL`), valid only inside it: a blob
    /// read without a copy.
    public func withBytes<T>(_ column: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        guard let bytes = sqlite3_column_blob(statement.handle, Int32(column)) else {
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        let length = Int(sqlite3_column_bytes(statement.handle, Int32(column)))
        return try body(UnsafeRawBufferPointer(start: bytes, count: length))
    }
}
