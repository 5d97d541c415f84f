import Logging
import PostgresNIO

extension PostgresClient {
    /// Runs `statement` prepared (parsed and planned once per connection) and returns its rows.
    ///
    /// postgres-nio remembers a failed preparation for the life of its connection: every later
    /// use of the statement there fails the same way, whatever failed it (a refusal, a lock wait
    /// cancelled by ``PostgresPool/statementTimeout``, an admin's cancel). So when the server
    /// answers with an error, the statement runs once more as an ordinary query, unless the
    /// error is a data or constraint error (SQLSTATE classes 22 and 23: the statement ran and
    /// failed on its values, and would again). An autocommitted statement that failed changed
    /// nothing (none of the hub's statements uses a sequence), so the retry is safe.
    func rows<Statement: PostgresPreparedStatement>(of statement: Statement, logger: Logger) async throws -> [Statement.Row] {
        var result: [Statement.Row] = []
        do {
            for try await row in try await execute(statement, logger: logger) { result.append(row) }
            return result
        } catch let error as PSQLError where error.code == .server && !Self.failedOnItsValues(error) {
            logger.warning("prepared statement refused; running it unprepared", metadata: [
                "statement": "\(Statement.name)", "error": "\(PostgresPool.describe(error))",
            ])
            result.removeAll()
            let query = PostgresQuery(unsafeSQL: Statement.sql, binds: try statement.makeBindings())
            for try await row in try await self.query(query, logger: logger) { result.append(try statement.decodeRow(row)) }
            return result
        }
    }

    /// Whether a server error is a data or constraint error (SQLSTATE class 22 or 23), which a
    /// statement meets running on its values, never while being prepared.
    static func failedOnItsValues(_ error: PSQLError) -> Bool {
        guard let state = error.serverInfo?[.sqlState] else { return false }
        return state.hasPrefix("22") || state.hasPrefix("23")
    }
}
