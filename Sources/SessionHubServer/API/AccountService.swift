import HubDomain
import HubStorage

/// A user's own account data — profile, history, progress — with the rules both the HTTP API
/// and the WebSocket requests apply: premium gate on history, validation of profile changes,
/// paging limits, and nothing of anyone else's. Errors are ``APIError``s with stable codes.
struct AccountService: Sendable {
    let stores: HubStores
    let clock: any HubClock
    /// What a session the app posts must pass (the live session's limits).
    let postedSessions: PostedSessionRules
    /// The largest page of whole sessions (`http.maxFullHistoryPage`).
    let maxFullHistoryPage: Int

    /// The stored profile, or the default one of a user who never saved theirs.
    func profile(userId: String, displayName: String) async throws -> UserProfile {
        if let stored = try await stores.profiles.profile(userId: userId) { return stored }
        return UserProfile.initial(id: userId, displayName: displayName, now: clock.now())
    }

    /// Applies `update` to the user's profile and stores it.
    func updateProfile(_ update: ProfileUpdate, userId: String, displayName: String) async throws -> UserProfile {
        let current = try await profile(userId: userId, displayName: displayName)
        let updated = try update.applied(to: current, now: clock.now())
        return try await stores.profiles.saveProfile(updated)
    }

    /// One page of the user's history, most recent first. `limit` defaults to 20 (1…100);
    /// `before` is an epoch-ms bound (exclusive).
    /// `beforeId` (with `before`) makes the cursor the entry (`before`, `beforeId`) itself.
    func history(userId: String, limit: Int?, before: Int64?, beforeId: String? = nil) async throws -> HistoryPage {
        try await requirePremium(userId)
        let limit = limit ?? 20
        guard (1...100).contains(limit) else { throw APIError.badRequest("limit must be an integer from 1 to 100") }
        try Self.checkCursor(before: before, beforeId: beforeId)
        return try await stores.history.getSessions(userId: userId, limit: limit, before: before, beforeId: beforeId)
    }

    private static func checkCursor(before: Int64?, beforeId: String?) throws(APIError) {
        if let before, before <= 0 { throw APIError.badRequest("before must be a positive epoch-milliseconds integer") }
        if let beforeId {
            guard before != nil else { throw APIError.badRequest("beforeId needs before (the same entry's timestamp)") }
            guard (1...PostedSessionRules.maxIdLength).contains(beforeId.utf8.count) else {
                throw APIError.badRequest("beforeId must be 1 to \(PostedSessionRules.maxIdLength) bytes")
            }
        }
    }

    /// One page of the user's history with whole sessions, most recent first. `limit` defaults
    /// to 20 and may be 1 to ``maxFullHistoryPage``; `before` and `beforeId` as in ``history(userId:limit:before:beforeId:)``.
    func fullHistory(userId: String, limit: Int?, before: Int64?, beforeId: String? = nil) async throws -> HistorySessionPage {
        try await requirePremium(userId)
        let limit = limit ?? min(20, maxFullHistoryPage)
        guard (1...maxFullHistoryPage).contains(limit) else {
            throw APIError.badRequest("limit must be an integer from 1 to \(maxFullHistoryPage) with full=1")
        }
        try Self.checkCursor(before: before, beforeId: beforeId)
        return try await stores.history.getFullSessions(userId: userId, limit: limit, before: before, beforeId: beforeId)
    }

    /// Saves a session the user's app recorded on its own (premium only), idempotent by
    /// `sessionId`: returns whether it was stored now and the entry the user has. A different
    /// session under a stored id, or the id of a session the hub recorded for the user but that
    /// is not in their history, is refused with 409 `history_conflict`; the hub's own entry is
    /// answered as stored, never replaced.
    func saveHistorySession(_ session: HistorySession, userId: String) async throws -> (created: Bool, session: HistorySession) {
        try await requirePremium(userId)
        let session = try postedSessions.checked(session, now: clock.now())
        switch try await stores.history.addSession(userId: userId, session: session) {
        case .created(let stored): return (true, stored)
        case .unchanged(let stored): return (false, stored)
        case .recordedByHub(let stored?): return (false, stored)
        case .recordedByHub(nil):
            throw APIError(.conflict, "history_conflict",
                           "the hub recorded session \(session.sessionId) for you; it is not in your history and cannot be saved from the app")
        case .conflict:
            throw APIError(.conflict, "history_conflict",
                           "your history holds a different session \(session.sessionId); delete it first to replace it")
        }
    }

    /// One entry of the user's history with its transcript; `not_found` also when it is someone else's.
    func historySession(userId: String, sessionId: String) async throws -> HistorySession {
        try await requirePremium(userId)
        guard let session = try await stores.history.getSession(userId: userId, sessionId: sessionId) else {
            throw APIError.notFound("no session \(sessionId.prefix(64)) in your history")
        }
        return session
    }

    /// Deletes one entry of the user's history. Allowed without premium: a lapsed subscriber
    /// can still remove what they kept.
    func deleteHistorySession(userId: String, sessionId: String) async throws {
        guard try await stores.history.deleteSession(userId: userId, sessionId: sessionId) else {
            throw APIError.notFound("no session \(sessionId.prefix(64)) in your history")
        }
    }

    /// Deletes the user's whole history; returns how many entries went. Allowed without premium.
    func clearHistory(userId: String) async throws -> Int {
        return try await stores.history.clear(userId: userId)
    }

    /// Progress per language as of now: `weeklyXP` of the current ISO week, a streak that
    /// lapsed since the last session shows 0 (UTC).
    func progress(userId: String) async throws -> [UserProgress] {
        try await stores.progress.progress(userId: userId, now: clock.now())
    }

    private func requirePremium(_ userId: String) async throws {
        guard try await stores.profiles.profile(userId: userId)?.isPremium == true else { throw APIError.featureLocked }
    }
}
