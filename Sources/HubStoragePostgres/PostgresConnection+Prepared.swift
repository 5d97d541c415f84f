import Logging
import PostgresNIO

extension PostgresConnection {
    /// Runs `statement` prepared on this connection (inside the caller's transaction, when it
    /// has one) and returns its rows. Unlike the pool's ``PostgresClient/rows(of:logger:)``
    /// there is no unprepared retry: inside a transaction a refused statement has aborted it.
    func rows<Statement: PostgresPreparedStatement>(of statement: Statement, logger: Logger) async throws -> [Statement.Row] {
        var result: [Statement.Row] = []
        for try await row in try await execute(statement, logger: logger) { result.append(row) }
        return result
    }
}
