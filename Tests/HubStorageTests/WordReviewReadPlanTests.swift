@testable import HubStoragePostgres
import PostgresNIO
import Testing

/// The plan PostgreSQL makes for an ended session's read of its learners' word states
/// (``WordReviewSelectStatement``), asked of a real server.
@Suite("PostgreSQL word-review read", .enabled(if: PostgresTestDatabase.available))
struct WordReviewReadPlanTests {
    @Test("Each learner's words are found by descending the key once per word, learners with large vocabularies among many, in a generic plan")
    func readDescendsTheKeyPerWord() async throws {
        try await PostgresTestDatabase.with { pool in
            let logger = pool.logger
            try await pool.client.withConnection { db in
                // 500 learners with 100 words each, and two with 3,000, analyzed.
                try await db.query("""
                    INSERT INTO word_reviews (user_id, language, word, ease_factor, interval_days, repetitions,
                                              next_review_at, last_reviewed_at)
                    SELECT 'user' || u, 'fr', 'mot' || g, 2.5, 1, 1, 0, 0
                    FROM generate_series(1, 500) AS u, generate_series(1, 100) AS g
                    UNION ALL
                    SELECT u, 'fr', 'mot' || g, 2.5, 1, 1, 0, 0
                    FROM unnest(ARRAY['ana', 'bob']) AS u, generate_series(1, 3000) AS g
                    """, logger: logger)
                try await db.query("ANALYZE word_reviews", logger: logger)
                try await db.query("SET plan_cache_mode = force_generic_plan", logger: logger)
                try await db.query(PostgresQuery(unsafeSQL: "PREPARE review_read AS \(WordReviewSelectStatement.sql)"),
                                   logger: logger)
                var plan = ""
                let rows = try await db.query("""
                    EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
                    EXECUTE review_read('{ana,bob}', '{fr,fr}', '{mot1,mot2,mot3,mot2999}')
                    """, logger: logger)
                for try await line in rows.decode(String.self) { plan += line + "\n" }
                #expect(plan.contains("word_reviews_pkey"), "no index scan of the key:\n\(plan)")
                #expect(plan.contains("word = ANY"), "the words are not an index condition:\n\(plan)")
                #expect(!plan.contains("Seq Scan") && !plan.contains("Filter"), "rows read beyond the words asked:\n\(plan)")
                #expect(plan.contains("(actual rows=8 loops=1)"), "two learners × four words:\n\(plan)")
            }
        }
    }
}
