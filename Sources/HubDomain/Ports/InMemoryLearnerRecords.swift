import SessionHubSync

/// ``LearnerRecords`` in memory: words per user and language, and session days per user.
public final class InMemoryLearnerRecords: LearnerRecords {
    private struct State {
        var words: [String: Set<String>] = [:]
        var days: [String: Set<Int64>] = [:]
    }
    private let state = LockedValue(State())

    /// Creates empty records.
    public init() {}

    public func knownWords(userId: String, language: String) async -> Set<String> {
        state.withLock { $0.words[userId + "\u{0}" + language] ?? [] }
    }

    public func recordWords(_ words: Set<String>, userId: String, language: String) async {
        state.withLock { $0.words[userId + "\u{0}" + language, default: []].formUnion(words) }
    }

    public func streak(userId: String, endingAt now: Int64) async -> Int {
        let today = now / 86_400_000
        return state.withLock { state in
            state.days[userId, default: []].insert(today)
            let days = state.days[userId] ?? []
            var streak = 0
            while days.contains(today - Int64(streak)) { streak += 1 }
            return max(1, streak)
        }
    }
}
