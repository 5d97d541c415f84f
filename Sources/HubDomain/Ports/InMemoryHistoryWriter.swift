import SessionHubSync

/// Keeps ended sessions in memory. Users for whom `isPremium` answers true get `.success`,
/// the others `.error(.featureLocked)` and nothing stored — the same rule as the durable store.
public final class InMemoryHistoryWriter: HistoryWriter {
    private let saved = LockedValue<[String: [EndedSession]]>([:])
    private let isPremium: @Sendable (String) -> Bool

    /// Creates the writer; by default nobody is premium.
    public init(isPremium: @escaping @Sendable (String) -> Bool = { _ in false }) {
        self.isPremium = isPremium
    }

    public func save(_ session: EndedSession) async -> [String: HistoryWriteResult] {
        var results: [String: HistoryWriteResult] = [:]
        for participant in session.participants {
            if isPremium(participant.userId) {
                saved.withLock { $0[participant.userId, default: []].append(session) }
                results[participant.userId] = .success
            } else {
                results[participant.userId] = .error(.featureLocked)
            }
        }
        return results
    }

    /// The sessions saved for a user, oldest first.
    public func sessions(of userId: String) -> [EndedSession] {
        saved.withLock { $0[userId] ?? [] }
    }
}
