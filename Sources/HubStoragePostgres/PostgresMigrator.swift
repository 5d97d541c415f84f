import HubDomain
import Logging
import HubStorage
import PostgresNIO

/// Applies ``PostgresSchema/migrations`` that a database lacks, each in its own transaction,
/// under a transaction-level advisory lock, so nodes starting together migrate once.
struct PostgresMigrator {
    let database: PostgresPool

    /// The lock every migrating node takes (an arbitrary constant: "SHUBMIGR").
    static let lockKey: Int64 = 0x5348_5542_4D49_4752

    func migrate() async throws {
        let logger = database.logger
        // Nodes starting together: the lock serializes even the bookkeeping table's creation
        // (concurrent CREATE TABLE IF NOT EXISTS can fail in PostgreSQL).
        try await database.transaction { connection in
            try await connection.query("SET LOCAL statement_timeout = 0", logger: logger)
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.lockKey))", logger: logger)
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version    integer PRIMARY KEY,
                    name       text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """, logger: logger)
        }
        for migration in PostgresSchema.migrations {
            try await database.transaction { connection in
                // A migration may rewrite a large table: no statement timeout for it
                // (``PostgresPool/statementTimeout`` is for the hub's own statements).
                try await connection.query("SET LOCAL statement_timeout = 0", logger: logger)
                try await connection.query("SELECT pg_advisory_xact_lock(\(Self.lockKey))", logger: logger)
                let rows = try await connection.query("SELECT 1 FROM schema_migrations WHERE version = \(migration.version)",
                                                      logger: logger)
                var applied = false
                for try await _ in rows { applied = true }
                guard !applied else { return }
                // One statement per query (the extended protocol takes no more).
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))",
                                           logger: logger)
                logger.notice("database migrated", metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
            }
        }
    }
}
