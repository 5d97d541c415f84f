import HubDomain
import SessionHubServer

/// Runs a real hub on an ephemeral loopback port for one test.
enum HubTestServer {
    static let secret = Array("integration-test-secret".utf8)

    /// A token for `user`, signed with the test secret.
    static func token(_ user: String, name: String? = nil, ttl: Int = 3600, admin: Bool = false) -> String {
        let now = Int(SystemHubClock().now() / 1000)
        return TokenAuthority(secret: secret).mint(TokenClaims(sub: user, name: name ?? user.capitalized, iat: now, exp: now + ttl,
                                                               role: admin ? "admin" : nil))
    }

    /// Starts a hub, runs `body` with its port, shuts it down.
    static func with(
        hub: HubConfiguration = HubConfiguration(),
        limits: HubConnectionLimits = HubConnectionLimits(),
        history: any HistoryWriter = InMemoryHistoryWriter(),
        _ body: (Int) async throws -> Void
    ) async throws {
        try await with(hub: hub, limits: limits,
                       persistence: HubPersistence(journal: InMemorySessionJournal(), history: history,
                                                   learners: InMemoryLearnerRecords())) { port, _ in
            try await body(port)
        }
    }

    /// Starts a hub on `persistence`, runs `body` with its port and the server, shuts it down
    /// (which closes the persistence).
    static func with(
        hub: HubConfiguration = HubConfiguration(),
        limits: HubConnectionLimits = HubConnectionLimits(),
        persistence: HubPersistence,
        adjust: (inout HubServerConfiguration) -> Void = { _ in },
        _ body: (Int, HubServer) async throws -> Void
    ) async throws {
        var configuration = HubServerConfiguration(port: 0, threads: 2, secret: secret, hub: hub, connectionLimits: limits)
        adjust(&configuration)
        let server = try HubServer(configuration: configuration, persistence: persistence)
        let port = try await server.start()
        do {
            try await body(port, server)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }
}
