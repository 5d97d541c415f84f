import PostgresNIO

/// The stored SM-2 states of some of one learner's words (`word = ANY($3)`), read before a
/// session's review; prepared once per connection (``WordReviewUpsertStatement``).
struct WordReviewSelectStatement: PostgresPreparedStatement {
    static let sql = """
        SELECT word, ease_factor, interval_days, repetitions, next_review_at, last_reviewed_at
        FROM word_reviews WHERE user_id = $1 AND language = $2 AND word = ANY($3::text[])
        """

    /// `word`, ease, interval in days, repetitions, next and last review (epoch ms).
    typealias Row = (String, Double, Int, Int, Int64, Int64)

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

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Row.self)
    }
}
