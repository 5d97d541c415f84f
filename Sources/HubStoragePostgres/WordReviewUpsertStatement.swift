import HubDomain
import PostgresNIO

/// The SM-2 states of every word an ended session's learners met, written in one multi-row
/// upsert (``PostgresStore`` `reviewWords`). A prepared statement: every ended session runs it,
/// and PostgreSQL plans it once per connection instead of every time. A (user, language, word)
/// key may be appended once.
struct WordReviewUpsertStatement: PostgresPreparedStatement {
    static let sql = """
        INSERT INTO word_reviews (user_id, language, word, ease_factor, interval_days, repetitions,
                                  next_review_at, last_reviewed_at)
        SELECT u, l, w, e, i, r, n, t
        FROM unnest($1::text[], $2::text[], $3::text[], $4::double precision[], $5::bigint[], $6::bigint[],
                    $7::bigint[], $8::bigint[]) AS k(u, l, w, e, i, r, n, t)
        ON CONFLICT (user_id, language, word) DO UPDATE SET
            ease_factor = excluded.ease_factor, interval_days = excluded.interval_days,
            repetitions = excluded.repetitions, next_review_at = excluded.next_review_at,
            last_reviewed_at = excluded.last_reviewed_at
        """

    typealias Row = Void

    private var userIds: [String] = []
    private var languages: [String] = []
    private var words: [String] = []
    private var eases: [Double] = []
    private var intervals: [Int64] = []
    private var repetitions: [Int64] = []
    private var nextReviews: [Int64] = []
    private var lastReviews: [Int64] = []

    /// Whether no state was appended (then there is nothing to run).
    var isEmpty: Bool { words.isEmpty }

    /// Sets `word` of `userId` in `language` to `review`.
    mutating func append(userId: String, language: String, word: String, review: WordReview) {
        userIds.append(userId)
        languages.append(language)
        words.append(word)
        eases.append(review.easeFactor)
        intervals.append(Int64(review.intervalDays))
        repetitions.append(Int64(review.repetitions))
        nextReviews.append(review.nextReviewAt)
        lastReviews.append(review.lastReviewedAt)
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 8)
        bindings.append(userIds)
        bindings.append(languages)
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
