import Logging
import PostgresNIO

extension PostgresClient {
    /// Runs `statement` prepared (parsed and planned once per connection) and returns its rows.
    ///
    /// postgres-nio remembers a failed preparation for the life of its connection: every later
    /// use of the statement there fails the same way. So when the server refuses the prepared
    /// statement, it runs once more as an ordinary query; an autocommitted statement that failed
    /// changed nothing, so the retry is safe.
    func rows<Statement: PostgresPreparedStatement>(of statement: Statement, logger: Logger) async throws -> [Statement.Row] {
        var result: [Statement.Row] = []
        do {
            for try await row in try await execute(statement, logger: logger) { result.append(row) }
            return result
        } catch let error as PSQLError where error.code == .server {
            logger.warning("prepared statement refused; running it unprepared", metadata: [
                "statement": "\(Statement.name)", "error": "\(PostgresPool.describe(error))",
            ])
            result.removeAll()
            let query = PostgresQuery(unsafeSQL: Statement.sql, binds: try statement.makeBindings())
            for try await row in try await self.query(query, logger: logger) { result.append(try statement.decodeRow(row)) }
            return result
        }
    }
}
