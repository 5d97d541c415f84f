/// Receives every ended session and stores it in each premium participant's history.
/// The storage layer implements it; ``InMemoryHistoryWriter`` keeps sessions in memory.
public protocol HistoryWriter: Sendable {
    /// Saves the session for its participants; answers per user id.
    func save(_ session: EndedSession) async -> [String: HistoryWriteResult]
}
