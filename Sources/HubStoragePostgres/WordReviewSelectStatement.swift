import PostgresNIO

/// The stored SM-2 states of the words an ended session's learners met, read in one query
/// before their review (``WordReviewUpsertStatement`` writes them back); prepared once per
/// connection. Keys are (user, language, word) triples, appended in any order.
struct WordReviewSelectStatement: PostgresPreparedStatement {
    static let sql = """
        SELECT w.user_id, w.word, w.ease_factor, w.interval_days, w.repetitions, w.next_review_at, w.last_reviewed_at
        FROM unnest($1::text[], $2::text[], $3::text[]) AS k(u, l, word)
        JOIN word_reviews w ON w.user_id = k.u AND w.language = k.l AND w.word = k.word
        """

    /// User id, word, ease, interval in days, repetitions, next and last review (epoch ms).
    typealias Row = (String, String, Double, Int, Int, Int64, Int64)

    private(set) var userIds: [String] = []
    private(set) var languages: [String] = []
    private(set) var words: [String] = []

    /// Asks for `word` of `userId` in `language`.
    mutating func append(userId: String, language: String, word: String) {
        userIds.append(userId)
        languages.append(language)
        words.append(word)
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(userIds)
        bindings.append(languages)
        bindings.append(words)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Row.self)
    }
}
