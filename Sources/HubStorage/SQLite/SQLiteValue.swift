import Foundation

/// A value bound to a statement parameter: SQLite's storage classes.
public enum SQLiteValue: Sendable, Equatable {
    /// `INTEGER`.
    case integer(Int64)
    /// `REAL`.
    case real(Double)
    /// `TEXT` (UTF-8).
    case text(String)
    /// `BLOB`.
    case blob(Data)
    /// `NULL`.
    case null

    /// An integer from a Swift `Int`.
    public static func int(_ value: Int) -> SQLiteValue { .integer(Int64(value)) }

    /// `1` or `0`.
    public static func bool(_ value: Bool) -> SQLiteValue { .integer(value ? 1 : 0) }

    /// Text, or `NULL` for nil.
    public static func optionalText(_ value: String?) -> SQLiteValue {
        value.map(SQLiteValue.text) ?? .null
    }

    /// An integer, or `NULL` for nil.
    public static func optionalInteger(_ value: Int64?) -> SQLiteValue {
        value.map(SQLiteValue.integer) ?? .null
    }
}
