import PostgresNIO

/// Adds words to learners' known words in one language, one row of `known_word_sets` per
/// learner: row i of the arguments is (`userIds[i]`, `words[i]`), grouped by learner into one
/// array under `source` (the session that taught them). A source already stored for a learner
/// is left alone, so a retried write adds nothing. A prepared statement: every ended session
/// runs it once, for all its participants.
struct KnownWordsInsertStatement: PostgresPreparedStatement {
    static let sql = """
        INSERT INTO known_word_sets (user_id, language, source, words)
        SELECT u, $1, $2, array_agg(w ORDER BY w) FROM unnest($3::text[], $4::text[]) AS t(u, w) GROUP BY u
        ORDER BY u
        ON CONFLICT DO NOTHING
        """

    typealias Row = Void

    var language: String
    var source: String
    var userIds: [String]
    var words: [String]

    /// The rows for `words` of each user, in a fixed order (users, then words, sorted), so that
    /// concurrent inserts take their row locks in the same order.
    /// - Parameter source: what taught the words: the ended session's id, or a unique id for
    ///   words recorded outside a session's write.
    init(_ learned: [String: Set<String>], language: String, source: String) {
        self.language = language
        self.source = source
        var userIds: [String] = [], words: [String] = []
        for (userId, met) in learned.sorted(by: { $0.key < $1.key }) {
            for word in met.sorted() {
                userIds.append(userId)
                words.append(word)
            }
        }
        self.userIds = userIds
        self.words = words
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(language)
        bindings.append(source)
        bindings.append(userIds)
        bindings.append(words)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {}
}
