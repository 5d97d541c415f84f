/// One step of a database schema: a version number and the SQL that brings the schema from the
/// previous version to this one. Applied once, in its own transaction, by ``SQLiteMigrator``.
public struct SQLiteMigration: Sendable, Equatable {
    /// Version reached after this step (1, 2, 3, ... strictly increasing).
    public var version: Int
    /// A short description, for logs and `docs/STORAGE.md`.
    public var name: String
    /// The statements (one script; `;`-separated).
    public var sql: String

    /// Creates a step.
    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}
