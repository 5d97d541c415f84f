import HubDomain

/// Applies versioned ``SQLiteMigration``s. Applied versions are recorded in
/// `schema_migrations(version INTEGER PRIMARY KEY, applied_at INTEGER)`; each pending step runs
/// in its own `BEGIN IMMEDIATE` transaction together with its record, so a crash leaves either
/// the old or the new version and reopening is idempotent. Two processes opening the same file
/// at once serialize on the write lock and the second finds nothing left to do.
public struct SQLiteMigrator: Sendable {
    /// The steps, in version order.
    public let migrations: [SQLiteMigration]

    /// The hub's schema (``SQLiteSchema``).
    public static let hubSchema: [SQLiteMigration] = SQLiteSchema.migrations

    /// Creates a migrator for `migrations`.
    public init(migrations: [SQLiteMigration]) {
        self.migrations = migrations.sorted { $0.version < $1.version }
    }

    /// The highest version this migrator knows.
    public var latestVersion: Int { migrations.last?.version ?? 0 }

    /// Brings the database up to ``latestVersion``; returns the versions it applied. Throws when
    /// the file was written by a newer schema than this build knows.
    @discardableResult
    public func migrate(_ connection: SQLiteConnection) throws -> [Int] {
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version INTEGER PRIMARY KEY,
                applied_at INTEGER NOT NULL
            )
            """)
        let newest = try connection.queryFirst("SELECT MAX(version) FROM schema_migrations") { $0.optionalInt64(0) } ?? nil
        if let newest, newest > Int64(latestVersion) {
            throw StorageError("database schema version \(newest) is newer than this build's \(latestVersion)")
        }
        var applied: [Int] = []
        for migration in migrations {
            let didApply = try connection.transaction { () throws -> Bool in
                let present = try connection.queryFirst("SELECT 1 FROM schema_migrations WHERE version = ?",
                                                        [.int(migration.version)]) { _ in true } ?? false
                if present { return false }
                try connection.execute(migration.sql)
                try connection.run("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                                   [.int(migration.version), .integer(SystemHubClock().now())])
                return true
            }
            if didApply { applied.append(migration.version) }
        }
        return applied
    }

    /// The versions recorded in the database, ascending.
    public static func appliedVersions(_ connection: SQLiteConnection) throws -> [Int] {
        try connection.query("SELECT version FROM schema_migrations ORDER BY version") { $0.int(0) }
    }
}
