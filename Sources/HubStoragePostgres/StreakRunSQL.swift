/// The SQL that reads a streak: for each user, the run of consecutive session days that ends at
/// the user's anchor day, newest first, walked back one primary-key lookup per day and stopped
/// at the first missing day. A learner's streak costs as many lookups as the streak is long,
/// not a read of every day the learner ever played (years of daily play are hundreds of rows
/// that the rule, ``ProgressRules/consecutiveDays(_:endingAt:)``, would drop after the first gap).
///
/// The rule itself stays in Swift: the rows this reads go through it unchanged, so the stores
/// agree on a streak by construction.
enum StreakRunSQL {
    /// A `WITH RECURSIVE` member `streak_run(user_id, day)` for users `users` (a `text[]`
    /// parameter) whose runs end at `anchors` (a `bigint[]` parameter, pairwise).
    ///
    /// A user given twice is walked once (`UNION`, not `UNION ALL`: a day read twice would end
    /// the run at its second copy). An anchor equal to `recorded` (a `bigint` parameter) counts
    /// as present without a lookup: a statement that inserts that day cannot see its own insert.
    static func member(users: String, anchors: String, recorded: String) -> String {
        """
        streak_run(user_id, day) AS (
            SELECT k.u, k.a FROM unnest(\(users)::text[], \(anchors)::bigint[]) AS k(u, a)
            WHERE k.a = \(recorded)::bigint
               OR EXISTS (SELECT 1 FROM session_days s WHERE s.user_id = k.u AND s.day = k.a)
            UNION
            SELECT r.user_id, r.day - 1 FROM streak_run r
            WHERE EXISTS (SELECT 1 FROM session_days s WHERE s.user_id = r.user_id AND s.day = r.day - 1)
        )
        """
    }

    /// The select that reads `streak_run`, by user, newest day first.
    static let select = "SELECT user_id, day FROM streak_run ORDER BY user_id, day DESC"
}
