import HubDomain

/// A learner's SM-2 word states in one language, counted (what ``UserProgress``'s vocabulary
/// fields are computed from).
package struct VocabularyCounts: Sendable, Equatable {
    /// Words met (every word with a state).
    package var met: Int
    /// ``WordReview/isLearned``.
    package var learned: Int
    /// ``WordReview/isDue(at:)`` at the time asked.
    package var due: Int
    /// ``WordReview/isMastered``.
    package var mastered: Int

    package init(met: Int = 0, learned: Int = 0, due: Int = 0, mastered: Int = 0) {
        self.met = met
        self.learned = learned
        self.due = due
        self.mastered = mastered
    }

    /// The same counts over word states held in memory.
    package init<States: Sequence>(_ states: States, now: Int64) where States.Element == WordReview {
        self.init()
        for state in states {
            met += 1
            if state.isLearned { learned += 1 }
            if state.isDue(at: now) { due += 1 }
            if state.isMastered { mastered += 1 }
        }
    }
}
