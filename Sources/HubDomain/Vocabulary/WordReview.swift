/// The spaced-repetition state of one word for one learner in one language: SuperMemo-2 (SM-2)
/// with two documented deviations (docs/API.md, "Vocabulary and SM-2"), and reviews applied in
/// time order only (one older than the last changes nothing):
///
/// - a failed review (quality < 3) makes the word due again at once (interval 0) instead of
///   in one day, so a word a learner was corrected on shows up in `wordsDueForReview` right away;
/// - a successful review of a word that is not due yet (another session the same day) is not a
///   review: it changes nothing, so playing often in one day does not stretch the intervals (and
///   the stores write nothing for that word).
public struct WordReview: Sendable, Equatable, Codable {
    /// SM-2's easiness factor: starts at 2.5, never below 1.3.
    public var easeFactor: Double
    /// Days until the next review after the last successful one (0 after a failure).
    public var intervalDays: Int
    /// Successful reviews in a row (0 after a failure).
    public var repetitions: Int
    /// Epoch ms when the word is due for review.
    public var nextReviewAt: Int64
    /// Epoch ms of the last review that counted: a failure, a success when due, or the first
    /// review (a success before the word is due is not one).
    public var lastReviewedAt: Int64

    /// The ease factor of a word never reviewed.
    public static let initialEaseFactor = 2.5
    /// The lowest ease factor SM-2 allows.
    public static let minimumEaseFactor = 1.3
    /// A word with an interval of at least this many days counts as mastered.
    public static let masteredIntervalDays = 21
    /// Qualities from this one up are successful reviews (SM-2: 3).
    public static let passingQuality = 3
    private static let millisecondsPerDay: Int64 = 86_400_000

    /// Creates a state.
    public init(easeFactor: Double, intervalDays: Int, repetitions: Int, nextReviewAt: Int64, lastReviewedAt: Int64) {
        self.easeFactor = easeFactor
        self.intervalDays = intervalDays
        self.repetitions = repetitions
        self.nextReviewAt = nextReviewAt
        self.lastReviewedAt = lastReviewedAt
    }

    /// Learned: reviewed successfully at least once since its last failure (repetitions ≥ 1).
    public var isLearned: Bool { repetitions >= 1 }
    /// Mastered: its interval reached ``masteredIntervalDays``.
    public var isMastered: Bool { intervalDays >= Self.masteredIntervalDays }
    /// Due for review at `now` (epoch ms).
    public func isDue(at now: Int64) -> Bool { nextReviewAt <= now }

    /// The state after the first review of a new word.
    public static func first(quality: Int, at time: Int64) -> WordReview {
        WordReview(easeFactor: initialEaseFactor, intervalDays: 0, repetitions: 0, nextReviewAt: time, lastReviewedAt: time)
            .reviewed(quality: quality, at: time)
    }

    /// The state after a review of `quality` (0–5, clamped) at `time` (epoch ms); `self`
    /// unchanged for a success before the word is due, and for a review older than the last
    /// one (a session written late, after a retry: the newer review already decided).
    public func reviewed(quality: Int, at time: Int64) -> WordReview {
        let q = min(5, max(0, quality))
        if time < lastReviewedAt { return self }
        // A success before the word is due: not a review in SM-2's sense.
        if q >= Self.passingQuality, repetitions > 0, !isDue(at: time) { return self }
        var next = self
        next.lastReviewedAt = time
        if q < Self.passingQuality {
            next.easeFactor = Self.adjustedEase(easeFactor, quality: q)
            next.repetitions = 0
            next.intervalDays = 0
            next.nextReviewAt = time
            return next
        }
        next.easeFactor = Self.adjustedEase(easeFactor, quality: q)
        next.repetitions = repetitions + 1
        switch next.repetitions {
        case 1: next.intervalDays = 1
        case 2: next.intervalDays = 6
        default: next.intervalDays = max(1, Int((Double(intervalDays) * next.easeFactor).rounded()))
        }
        next.nextReviewAt = time + Int64(next.intervalDays) * Self.millisecondsPerDay
        return next
    }

    /// SM-2: EF' = EF + (0.1 − (5 − q) × (0.08 + (5 − q) × 0.02)), at least 1.3.
    static func adjustedEase(_ ease: Double, quality q: Int) -> Double {
        let miss = Double(5 - q)
        return max(minimumEaseFactor, ease + (0.1 - miss * (0.08 + miss * 0.02)))
    }
}
