import Logging
import PostgresNIO

extension PostgresClient {
    /// Runs `statement` prepared (parsed and planned once per connection) and returns its rows.
    ///
    /// postgres-nio remembers a failed preparation for the life of its connection: every later
    /// use of the statement there fails the same way. So when the server refuses the prepared
    /// statement (an error of the classes a preparation can fail with: 26, 42, 0A), it runs once
    /// more as an ordinary query; an autocommitted statement that failed changed nothing, so the
    /// retry is safe. Any other error (a constraint, a deadlock, a cancelled statement, a lost
    /// connection) is the caller's.
    func rows<Statement: PostgresPreparedStatement>(of statement: Statement, logger: Logger) async throws -> [Statement.Row] {
        var result: [Statement.Row] = []
        do {
            for try await row in try await execute(statement, logger: logger) { result.append(row) }
            return result
        } catch let error as PSQLError where error.code == .server && Self.isPreparationFailure(error) {
            logger.warning("prepared statement refused; running it unprepared", metadata: [
                "statement": "\(Statement.name)", "error": "\(PostgresPool.describe(error))",
            ])
            result.removeAll()
            let query = PostgresQuery(unsafeSQL: Statement.sql, binds: try statement.makeBindings())
            for try await row in try await self.query(query, logger: logger) { result.append(try statement.decodeRow(row)) }
            return result
        }
    }

    /// Whether a server error is one a statement's preparation can fail with (SQLSTATE class 26,
    /// invalid statement name; 42, syntax or access rule; 0A, feature not supported).
    static func isPreparationFailure(_ error: PSQLError) -> Bool {
        guard let state = error.serverInfo?[.sqlState] else { return false }
        return state.hasPrefix("26") || state.hasPrefix("42") || state.hasPrefix("0A")
    }
}
