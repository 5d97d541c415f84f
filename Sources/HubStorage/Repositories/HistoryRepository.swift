import HubDomain

/// Each user's saved sessions. A user only ever reaches their own entries.
public protocol HistoryRepository: Sendable {
    /// Most recent first (by `timestamp`, then `sessionId`, both descending); `limit` 1...100.
    /// `before` (epoch ms, exclusive) pages back; with `beforeId` too, the cursor is that entry
    /// itself: the page starts with the entries after it in this order, those that share its
    /// `timestamp` included.
    func getSessions(userId: String, limit: Int, before: Int64?, beforeId: String?) async throws -> HistoryPage
    /// Like ``getSessions(userId:limit:before:beforeId:)`` with whole sessions (transcripts
    /// included), read in one query.
    func getFullSessions(userId: String, limit: Int, before: Int64?, beforeId: String?) async throws -> HistorySessionPage
    /// One entry with its transcript, or nil (also when it belongs to someone else).
    func getSession(userId: String, sessionId: String) async throws -> HistorySession?
    /// Stores a session the user's app recorded on its own, unless the user has an entry with
    /// its id or the hub recorded a session with its id for them (``HistoryAddOutcome``).
    /// Progress is not touched. Checks and insert are one transaction.
    func addSession(userId: String, session: HistorySession) async throws -> HistoryAddOutcome
    /// Deletes one entry; false when the user has no such entry.
    func deleteSession(userId: String, sessionId: String) async throws -> Bool
    /// Deletes every entry of the user; returns how many.
    func clear(userId: String) async throws -> Int
}

extension HistoryRepository {
    /// A page before the epoch-ms `before` (exclusive), or the first page.
    public func getSessions(userId: String, limit: Int, before: Int64?) async throws -> HistoryPage {
        try await getSessions(userId: userId, limit: limit, before: before, beforeId: nil)
    }

    /// A page of whole sessions before the epoch-ms `before` (exclusive), or the first page.
    public func getFullSessions(userId: String, limit: Int, before: Int64?) async throws -> HistorySessionPage {
        try await getFullSessions(userId: userId, limit: limit, before: before, beforeId: nil)
    }
}
