/// Each user's saved sessions. A user only ever reaches their own entries.
public protocol HistoryRepository: Sendable {
    /// Most recent first; `before` (epoch ms, exclusive) pages back; `limit` 1...100.
    func getSessions(userId: String, limit: Int, before: Int64?) async throws -> HistoryPage
    /// One entry with its transcript, or nil (also when it belongs to someone else).
    func getSession(userId: String, sessionId: String) async throws -> HistorySession?
    /// Deletes one entry; false when the user has no such entry.
    func deleteSession(userId: String, sessionId: String) async throws -> Bool
    /// Deletes every entry of the user; returns how many.
    func clear(userId: String) async throws -> Int
}
