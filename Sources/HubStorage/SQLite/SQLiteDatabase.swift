import Foundation
import Synchronization

/// A SQLite database file behind one connection, safe to share between tasks and threads:
/// every use of the connection happens inside one lock, so calls are serialized.
///
/// Opening applies `PRAGMA journal_mode=WAL`, `synchronous=NORMAL`, `foreign_keys=ON` and a
/// 5000 ms busy timeout, then brings the schema up to date with ``SQLiteMigrator``. With
/// `autoCheckpoint` false (`PRAGMA wal_autocheckpoint=0`) commits never copy the WAL back into
/// the database file themselves (the fsync that makes a commit's latency spike); a
/// ``SQLiteCheckpointer`` must then do it in the background. Several
/// `SQLiteDatabase` values may open the same file (WAL lets readers run beside one writer;
/// writers wait up to the busy timeout for each other).
///
/// The lock is not re-entrant: never call a `SQLiteDatabase` method from inside one of its
/// closures — use the ``SQLiteConnection`` handed in.
public final class SQLiteDatabase: Sendable {
    /// The file's path.
    public let path: String
    private let connection: Mutex<SQLiteConnection?>

    /// Opens (creating it and its parent directories if needed) the database at `path` and
    /// applies `migrations` (by default the hub's schema, ``SQLiteMigrator/hubSchema``; none at
    /// all, not even the `schema_migrations` table, when empty).
    public init(path: String, migrations: [SQLiteMigration] = SQLiteMigrator.hubSchema,
                autoCheckpoint: Bool = true) throws {
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if !parent.isEmpty, !FileManager.default.fileExists(atPath: parent) {
            do {
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            } catch {
                throw StorageError("create directory \(parent): \(error.localizedDescription)")
            }
        }
        let opened = try SQLiteConnection(path: path)
        if !autoCheckpoint { try opened.execute("PRAGMA wal_autocheckpoint=0") }
        if !migrations.isEmpty { try SQLiteMigrator(migrations: migrations).migrate(opened) }
        self.path = path
        self.connection = Mutex(opened)
    }

    /// Runs `body` with the connection, under the lock.
    @discardableResult
    public func withConnection<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try connection.withLock { connection in
            guard let connection else { throw StorageError("database \(path) is closed") }
            return try body(connection)
        }
    }

    /// Runs `body` in one write transaction (`BEGIN IMMEDIATE`), under the lock; rolls back when
    /// it throws.
    @discardableResult
    public func transaction<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try withConnection { connection in
            try connection.transaction { try body(connection) }
        }
    }

    /// Closes the connection; later calls throw. Idempotent.
    public func close() {
        connection.withLock { connection in
            connection?.close()
            connection = nil
        }
    }
}
