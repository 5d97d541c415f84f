@testable import HubStoragePostgres
import PostgresNIO
import Testing

/// The plans PostgreSQL makes for the statements that find a session by its id
/// (``PostgresSchema/openSessionsByOwnerIndex``), asked of a real server.
@Suite("PostgreSQL session lookups", .enabled(if: PostgresTestDatabase.available))
struct SessionLookupPlanTests {
    /// Every statement that finds a session (or a seat's session) by its id.
    static let statements: [(name: String, sql: String)] = [
        ("journal insert", JournalInsertStatement.sql),
        ("open here", PostgresJournal.IsOpenHere.sql),
        ("close", PostgresJournal.CloseSession.sql),
        ("locate by session id", PostgresClusterNode.LocateBySessionId.sql),
        ("locate seat", PostgresClusterNode.LocateSeat.sql),
        ("reserve seat", PostgresClusterNode.ReserveSeat.sql),
    ]

    /// The highest parameter number (`$n`) in `sql`.
    static func parameterCount(_ sql: String) -> Int {
        var highest = 0, digits = "", inParameter = false
        for character in sql + " " {
            if inParameter, character.isASCII, character.isNumber {
                digits.append(character)
                continue
            }
            if inParameter, let number = Int(digits) { highest = max(highest, number) }
            inParameter = character == "$"
            digits = ""
        }
        return highest
    }

    @Test("A session found by its id is read through the primary key, even in a generic plan made while statistics counted no open session")
    func lookupsReadThePrimaryKey() async throws {
        try await PostgresTestDatabase.with { pool in
            let logger = pool.logger
            try await pool.client.withConnection { db in
                // Statistics taken while every session was closed; then 500 open sessions of one
                // node, not analyzed (a node's morning, or a fresh cluster under its first load).
                // No autovacuum meanwhile: its analyze would correct the statistics.
                try await db.query("ALTER TABLE sessions SET (autovacuum_enabled = false)", logger: logger)
                try await db.query("""
                    INSERT INTO sessions (session_id, join_code, owner_node, epoch, open, started_at, header)
                    SELECT 'closed-' || g, NULL, 'n1', 1, false, g, '{}' FROM generate_series(1, 5000) AS g
                    """, logger: logger)
                try await db.query("ANALYZE sessions", logger: logger)
                try await db.query("""
                    INSERT INTO sessions (session_id, join_code, owner_node, epoch, open, started_at, header)
                    SELECT 'open-' || g, NULL, 'n1', 1, true, 10000 + g, '{}' FROM generate_series(1, 500) AS g
                    """, logger: logger)
                // The journal's connections plan every prepared statement generically.
                try await db.query("SET plan_cache_mode = force_generic_plan", logger: logger)
                for (index, statement) in Self.statements.enumerated() {
                    try await db.query(PostgresQuery(unsafeSQL: "PREPARE lookup\(index) AS \(statement.sql)"), logger: logger)
                    let nulls = Array(repeating: "NULL", count: Self.parameterCount(statement.sql)).joined(separator: ", ")
                    var plan = ""
                    let rows = try await db.query(PostgresQuery(unsafeSQL: "EXPLAIN EXECUTE lookup\(index)(\(nulls))"), logger: logger)
                    for try await line in rows.decode(String.self) { plan += line + "\n" }
                    #expect(!plan.contains(PostgresSchema.openSessionsByOwnerIndex), "\(statement.name) scans the open sessions:\n\(plan)")
                    #expect(plan.contains("sessions_pkey"), "\(statement.name) does not read the primary key:\n\(plan)")
                }
            }
        }
    }

    @Test("sessions is analyzed after a fixed number of changes, and with statistics that count the open sessions a join code is found through its own index")
    func joinCodeLookupWithCurrentStatistics() async throws {
        try await PostgresTestDatabase.with { pool in
            let logger = pool.logger
            try await pool.client.withConnection { db in
                var options: [String] = []
                for try await option in try await db.query("""
                    SELECT unnest(reloptions) FROM pg_class WHERE oid = 'sessions'::regclass ORDER BY 1
                    """, logger: logger).decode(String.self) { options.append(option) }
                #expect(options == ["autovacuum_analyze_scale_factor=0",
                                    "autovacuum_analyze_threshold=\(PostgresSchema.sessionsAnalyzeThreshold)"])

                // 5,000 closed sessions and 2,000 open ones with join codes, then analyzed (what
                // autovacuum does after that many changes).
                try await db.query("""
                    INSERT INTO sessions (session_id, join_code, owner_node, epoch, open, started_at, header)
                    SELECT 'closed-' || g, NULL, 'n1', 1, false, g, '{}' FROM generate_series(1, 5000) AS g
                    """, logger: logger)
                try await db.query("""
                    INSERT INTO sessions (session_id, join_code, owner_node, epoch, open, started_at, header)
                    SELECT 'open-' || g, 'C' || g, 'n1', 1, true, 10000 + g, '{}' FROM generate_series(1, 2000) AS g
                    """, logger: logger)
                try await db.query("ANALYZE sessions", logger: logger)
                try await db.query("SET plan_cache_mode = force_generic_plan", logger: logger)
                let sql = PostgresClusterNode.LocateByJoinCode.sql
                try await db.query(PostgresQuery(unsafeSQL: "PREPARE by_code AS \(sql)"), logger: logger)
                var plan = ""
                let rows = try await db.query(PostgresQuery(unsafeSQL: "EXPLAIN EXECUTE by_code(NULL)"), logger: logger)
                for try await line in rows.decode(String.self) { plan += line + "\n" }
                #expect(plan.contains("sessions_open_join_code"), "the join-code lookup does not read its index:\n\(plan)")
                #expect(!plan.contains(PostgresSchema.openSessionsByOwnerIndex), "the join-code lookup scans the open sessions:\n\(plan)")
            }
        }
    }

    @Test("A heartbeat's claims with nothing to claim read no open session, with current or stale statistics; a claim takes the dead node's oldest sessions", arguments: [false, true])
    func claimReadsOnlyWhatItClaims(staleStatistics: Bool) async throws {
        try await PostgresTestDatabase.with { pool in
            let logger = pool.logger
            try await pool.client.withConnection { db in
                try await db.query("""
                    INSERT INTO nodes (node_id, public_url, internal_url, incarnation, started_at, heartbeat_at, dead)
                    SELECT 'n' || g, 'ws://n' || g, 'http://n' || g, 'i', now(), now(), g = 3 FROM generate_series(1, 3) AS g
                    """, logger: logger)
                // A cluster's table: mostly sessions played before, 2,000 open on two live nodes
                // (analyzed before they opened, or after).
                try await db.query("ALTER TABLE sessions SET (autovacuum_enabled = false)", logger: logger)
                try await db.query("""
                    INSERT INTO sessions (session_id, join_code, owner_node, epoch, open, started_at, header)
                    SELECT 'closed-' || g, NULL, 'n1', 1, false, g, '{}' FROM generate_series(1, 20000) AS g
                    """, logger: logger)
                if staleStatistics { try await db.query("ANALYZE sessions", logger: logger) }
                try await db.query("""
                    INSERT INTO sessions (session_id, join_code, owner_node, epoch, open, started_at, header)
                    SELECT 'open-' || g, NULL, 'n' || (1 + g % 2), 1, true, 100000 + g, '{}' FROM generate_series(1, 2000) AS g
                    """, logger: logger)
                if !staleStatistics { try await db.query("ANALYZE sessions", logger: logger) }
                try await db.query("ANALYZE nodes", logger: logger)
                try await db.query("SET plan_cache_mode = force_generic_plan", logger: logger)
                let claims = [("ownerless", PostgresClusterNode.ClaimOwnerless.sql, "(owner_node IS NULL)"),
                              ("dead", PostgresClusterNode.ClaimFromDeadNodes.sql, "(owner_node = ANY")]
                for (name, sql, condition) in claims {
                    try await db.query(PostgresQuery(unsafeSQL: "PREPARE claim_\(name) AS \(sql)"), logger: logger)
                    var plan = ""
                    let rows = try await db.query(PostgresQuery(unsafeSQL: "EXPLAIN (ANALYZE, COSTS OFF) EXECUTE claim_\(name)('n1', 64)"),
                                                  logger: logger)
                    for try await line in rows.decode(String.self) { plan += line + "\n" }
                    #expect(plan.contains("Index Cond: \(condition)"), "the \(name) claim does not look its sessions up:\n\(plan)")
                    #expect(!plan.contains("Seq Scan on sessions"), "the \(name) claim scans the table:\n\(plan)")
                    #expect(!plan.contains("Rows Removed by Filter: 2000"), "the \(name) claim filters the open sessions:\n\(plan)")
                }

                // n2 dies: n1's claims take its sessions, oldest first, in batches.
                try await db.query("UPDATE nodes SET dead = true WHERE node_id = 'n2'", logger: logger)
                var claimed: [String] = []
                for _ in 0..<2 {
                    let rows = try await db.query(PostgresQuery(unsafeSQL: "EXECUTE claim_dead('n1', 600)"), logger: logger)
                    for try await (id, epoch, _) in rows.decode((String, Int64, String).self) {
                        #expect(epoch == 2)
                        claimed.append(id)
                    }
                }
                #expect(claimed.count == 1000)
                #expect(Set(claimed.prefix(600)) == Set(stride(from: 1, through: 1199, by: 2).map { "open-\($0)" }))
                #expect(Set(claimed) == Set(stride(from: 1, through: 2000, by: 2).map { "open-\($0)" }))
            }
        }
    }

    @Test("Parameters are counted by their highest number")
    func parametersCounted() {
        #expect(Self.parameterCount("SELECT $1, $2 WHERE x = $12") == 12)
        #expect(Self.parameterCount("SELECT 1") == 0)
        #expect(Self.parameterCount("SELECT $3::text[], $1") == 3)
    }
}
