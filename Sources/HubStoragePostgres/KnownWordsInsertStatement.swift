import PostgresNIO

/// Adds words to learners' known words in one language (duplicates ignored) in one multi-row
/// insert: row i is (`userIds[i]`, `words[i]`). A prepared statement: every ended session runs
/// it once, for all its participants.
struct KnownWordsInsertStatement: PostgresPreparedStatement {
    static let sql = """
        INSERT INTO known_words (user_id, language, word)
        SELECT u, $1, w FROM unnest($2::text[], $3::text[]) AS t(u, w)
        ON CONFLICT DO NOTHING
        """

    typealias Row = Void

    var language: String
    var userIds: [String]
    var words: [String]

    /// The rows for `words` of each user, in a fixed order (users, then words, sorted), so that
    /// concurrent inserts take their row locks in the same order.
    init(_ learned: [String: Set<String>], language: String) {
        self.language = language
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
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(language)
        bindings.append(userIds)
        bindings.append(words)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {}
}
