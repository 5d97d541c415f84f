import PostgresNIO

/// Adds words to a learner's known words (duplicates ignored) in one multi-row insert; a
/// prepared statement, as every ended session runs it once per participant.
struct KnownWordsInsertStatement: PostgresPreparedStatement {
    static let sql = """
        INSERT INTO known_words (user_id, language, word)
        SELECT $1, $2, w FROM unnest($3::text[]) AS w
        ON CONFLICT DO NOTHING
        """

    typealias Row = Void

    var userId: String
    var language: String
    var words: [String]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(userId)
        bindings.append(language)
        bindings.append(words)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {}
}
