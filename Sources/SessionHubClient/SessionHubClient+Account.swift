import HubDomain

extension SessionHubClient {
    /// The player's profile: `GET /api/profile` (docs/API.md) on the hub's host and port
    /// (`https` for a `wss` URL), with a fresh token. Needs no WebSocket connection.
    /// - Throws: ``SessionHubClientError/refused(code:message:retryAfter:)`` with the API's code
    ///   (`token_expired`, `storage_unavailable`, `not_found` on a hub without a store, …);
    ///   ``SessionHubClientError/transport(_:)`` or ``SessionHubClientError/timedOut(request:)``
    ///   when the hub cannot be reached or answers something else.
    public func profile() async throws -> UserProfile {
        try await http.get("/api/profile", as: UserProfile.self)
    }

    /// The player's progress per language, sorted by language: `GET /api/progress`, the
    /// `progress` list of its body (docs/API.md). Errors as ``profile()``.
    public func progress() async throws -> [UserProgress] {
        struct Body: Decodable { let progress: [UserProgress] }
        return try await http.get("/api/progress", as: Body.self).progress
    }
}
