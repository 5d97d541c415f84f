/// A learner's estimated CEFR level in a language from the number of words they have learned
/// (``WordReview/isLearned``), and how far they are on the way to the next level.
public struct CEFREstimate: Sendable, Equatable {
    /// The highest level whose ``CEFRLevel/wordsToReach`` the learned words reach.
    public var level: CEFRLevel
    /// 0–100: the share of the words between this level's threshold and the next one's already
    /// learned, rounded down; 100 at C2.
    public var progressPercent: Int

    /// Creates an estimate.
    public init(level: CEFRLevel, progressPercent: Int) {
        self.level = level
        self.progressPercent = progressPercent
    }

    /// The estimate for `wordsLearned` learned words (negative counts as 0).
    public init(wordsLearned: Int) {
        let words = max(0, wordsLearned)
        let level = CEFRLevel.allCases.last { words >= $0.wordsToReach } ?? .a1
        guard let next = level.next else {
            self.init(level: level, progressPercent: 100)
            return
        }
        let span = next.wordsToReach - level.wordsToReach
        self.init(level: level, progressPercent: min(100, (words - level.wordsToReach) * 100 / span))
    }
}
