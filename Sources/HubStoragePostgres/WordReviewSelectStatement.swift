import HubDomain
import HubStorage
import PostgresNIO

/// The SM-2 states that nodes before schema version 7 stored a row per word (`word_reviews`),
/// for the words an ended session's learners met, read in one query before their review (which
/// writes a set, `word_review_sets`, ``WordReviewSet``); prepared once per connection.
///
/// Asks for each learner's (user, language) and **one list of words for all of them** (the
/// words of a session's learners are mostly the same): PostgreSQL descends the key once per
/// word inside one index scan per learner, instead of joining a row per (user, language, word)
/// triple with a scan each (1.3 against 2.1 ms for four learners of 79 words, 3.0 against
/// 3.2 ms with 5,000 words each stored, in psql, generic plans). A learner's answer may carry
/// a state for a word only another learner met; the review uses only the words it asks about.
///
/// The answer is **one row of parallel arrays**, not a row per word: an ended session reads a
/// few hundred states, and postgres-nio pays per row (a message, a state-machine step, a
/// decode of every column; alone this saved about 4 % of a PostgreSQL node's CPU at 1,600
/// deliveries/s, within that hour's noise). The aggregates of one
/// query level see the same rows in the same order, so the arrays line up (``decodeRow(_:)``
/// checks their lengths).
struct WordReviewSelectStatement: PostgresPreparedStatement {
    static let sql = """
        SELECT coalesce(array_agg(w.user_id), '{}'), coalesce(array_agg(w.word), '{}'),
               coalesce(array_agg(w.ease_factor), '{}'), coalesce(array_agg(w.interval_days::bigint), '{}'),
               coalesce(array_agg(w.repetitions::bigint), '{}'), coalesce(array_agg(w.next_review_at), '{}'),
               coalesce(array_agg(w.last_reviewed_at), '{}')
        FROM unnest($1::text[], $2::text[]) AS k(u, l)
        JOIN word_reviews w ON w.user_id = k.u AND w.language = k.l AND w.word = ANY($3::text[])
        """

    /// The stored states found, each with its user id and word.
    typealias Row = [(userId: String, word: String, review: WordReview)]

    private var userIds: [String] = []
    private var languages: [String] = []
    private var words = Set<String>()

    /// Whether no word was asked for (then there is nothing to run).
    var isEmpty: Bool { words.isEmpty }

    /// Asks for `met` of `userId` in `language` (a user once).
    mutating func append<Words: Sequence<String>>(userId: String, language: String, words met: Words) {
        userIds.append(userId)
        languages.append(language)
        words.formUnion(met)
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(userIds)
        bindings.append(languages)
        bindings.append(words.sorted())
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (users, words, eases, intervals, repetitions, nexts, lasts) =
            try row.decode(([String], [String], [Double], [Int64], [Int64], [Int64], [Int64]).self)
        let count = users.count
        guard [words.count, eases.count, intervals.count, repetitions.count, nexts.count, lasts.count]
            .allSatisfy({ $0 == count }) else {
            throw StorageError("word reviews read back in arrays of different lengths")
        }
        return (0..<count).map { index in
            (users[index], words[index],
             WordReview(easeFactor: eases[index], intervalDays: Int(intervals[index]), repetitions: Int(repetitions[index]),
                        nextReviewAt: nexts[index], lastReviewedAt: lasts[index]))
        }
    }
}
