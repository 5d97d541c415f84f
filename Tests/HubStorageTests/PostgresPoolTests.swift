@testable import HubStoragePostgres
import PostgresNIO
import Testing

/// The pools' connection settings, asked of a real server.
@Suite("PostgreSQL pool", .enabled(if: PostgresTestDatabase.available))
struct PostgresPoolTests {
    @Test("Every pooled connection, general or the journal's, cancels a statement or an idle transaction after statementTimeout")
    func connectionsCarryTheTimeouts() async throws {
        try await PostgresTestDatabase.with { pool in
            #expect(PostgresPool.statementTimeout == .seconds(30))
            for client in [pool.client, pool.journalClient] {
                var settings: [String] = []
                let rows = try await client.query("""
                    SELECT current_setting('statement_timeout'), current_setting('idle_in_transaction_session_timeout')
                    """, logger: pool.logger)
                for try await (statement, idle) in rows.decode((String, String).self) { settings += [statement, idle] }
                #expect(settings == ["30s", "30s"])
            }
        }
    }

    @Test("Every pooled connection is kept alive by the server's TCP keepalives, so the pools need no keep-alive queries")
    func connectionsCarryTheKeepalives() async throws {
        try await PostgresTestDatabase.with { pool in
            for client in [pool.client, pool.journalClient] {
                var settings: [String] = []
                // inet_client_port: a TCP connection (on a Unix socket the settings read 0).
                let rows = try await client.query("""
                    SELECT current_setting('tcp_keepalives_idle'), current_setting('tcp_keepalives_interval'),
                           current_setting('tcp_keepalives_count'), inet_client_port() IS NOT NULL
                    """, logger: pool.logger)
                for try await (idle, interval, count, tcp) in rows.decode((String, String, String, Bool).self) {
                    settings += [idle, interval, count, "\(tcp)"]
                }
                #expect(settings == ["60", "10", "6", "true"])
            }
        }
    }
}
