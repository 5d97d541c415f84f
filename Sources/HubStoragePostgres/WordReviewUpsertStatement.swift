import PostgresNIO

/// The SM-2 states of one learner's words after a session, written in one multi-row upsert
/// (``PostgresStore`` `reviewWords`). A prepared statement: every ended session runs it once per
/// participant, and PostgreSQL plans it once per connection instead of every time.
struct WordReviewUpsertStatement: PostgresPreparedStatement {
    static let sql = """
        INSERT INTO word_reviews (user_id, language, word, ease_factor, interval_days, repetitions,
                                  next_review_at, last_reviewed_at)
        SELECT $1, $2, w, e, i, r, n, l
        FROM unnest($3::text[], $4::double precision[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[])
             AS t(w, e, i, r, n, l)
        ON CONFLICT (user_id, language, word) DO UPDATE SET
            ease_factor = excluded.ease_factor, interval_days = excluded.interval_days,
            repetitions = excluded.repetitions, next_review_at = excluded.next_review_at,
            last_reviewed_at = excluded.last_reviewed_at
        """

    typealias Row = Void

    var userId: String
    var language: String
    var words: [String]
    var eases: [Double]
    var intervals: [Int64]
    var repetitions: [Int64]
    var nextReviews: [Int64]
    var lastReviews: [Int64]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 8)
        bindings.append(userId)
        bindings.append(language)
        bindings.append(words)
        bindings.append(eases)
        bindings.append(intervals)
        bindings.append(repetitions)
        bindings.append(nextReviews)
        bindings.append(lastReviews)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {}
}
