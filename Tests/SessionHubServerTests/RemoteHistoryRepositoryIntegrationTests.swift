import Foundation
import HubDomain
import NIOSSL
import SessionHubClient
import SessionHubServer
import Testing

/// The client's `RemoteHistoryRepository` (the SDK's history contract) against a real hub on a
/// real SQLite file.
@Suite("RemoteHistoryRepository against a real hub", .timeLimit(.minutes(2)))
struct RemoteHistoryRepositoryIntegrationTests {
    private static func withHub(_ body: (Int) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hub-remote-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let persistence = try HubPersistence.sqlite(path: dir + "/data/sessionhub.sqlite", logger: .init(label: "test"))
        try await HubTestServer.with(persistence: persistence) { port, _ in try await body(port) }
    }

    private static func client(_ port: Int, _ user: String) throws -> SessionHubClient {
        try SessionHubClient(url: "ws://127.0.0.1:\(port)/ws") { HubTestServer.token(user) }
    }

    private static func setPremium(_ port: Int, _ user: String) async throws {
        let reply = try await HTTPTestClient.request("PUT", port: port, "/admin/users/\(user)/premium",
                                                     token: HubTestServer.token("ops", admin: true), body: ["isPremium": true])
        #expect(reply.status == 200)
    }

    private static let now = Int64(Date().timeIntervalSince1970 * 1000)

    static func session(_ id: String, at timestamp: Int64, text: String = "Hola") -> HistorySession {
        HistorySession(sessionId: id, scenarioTitle: "Ordering Coffee", timestamp: timestamp, targetLanguage: "es",
                       durationSeconds: 42,
                       dialogLines: [DialogLine(id: "l1", speakerId: "pia", roleName: "Customer", textNative: text,
                                                textTranslated: "Hello", timestamp: timestamp - 500)])
    }

    /// Waits for a list on `stream` that `matches`.
    private static func next(_ stream: AsyncStream<[HistorySession]>, where matches: @escaping @Sendable ([HistorySession]) -> Bool)
        async throws -> [HistorySession] {
        try await withThrowingTaskGroup(of: [HistorySession]?.self) { group in
            group.addTask {
                for await list in stream where matches(list) { return list }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: .seconds(10))
                return nil
            }
            defer { group.cancelAll() }
            return try #require(try await group.next() ?? nil)
        }
    }

    @Test("Save, read most recent first, delete and clear, with the stream following")
    func saveReadDeleteClear() async throws {
        try await Self.withHub { port in
            try await Self.setPremium(port, "pia")
            let history = try await Self.client(port, "pia").historyRepository()
            let updates = history.sessions
            #expect(try await Self.next(updates) { $0.isEmpty } == [])

            let older = Self.session("app-older", at: Self.now - 60_000)
            let newer = Self.session("app-newer", at: Self.now)
            #expect(await history.saveSession(older) == .success(older))
            #expect(await history.saveSession(newer) == .success(newer))
            #expect(await history.saveSession(newer) == .success(newer))  // idempotent
            #expect(try await history.getSessions() == [newer, older])
            #expect(try await Self.next(updates) { $0.count == 2 } == [newer, older])

            // A different session under a stored id is refused for good, not as a network error.
            let clash = await history.saveSession(Self.session("app-newer", at: Self.now, text: "Adiós"))
            guard case .error(.rejected(let code, _)) = clash else {
                Issue.record("expected a rejection, got \(clash)")
                return
            }
            #expect(code == "history_conflict")

            try await history.deleteSession(id: "app-older")
            #expect(try await Self.next(updates) { $0.count == 1 } == [newer])
            #expect(try await history.getSessions() == [newer])
            try await history.deleteSession(id: "app-older")  // gone already: fine

            try await history.clear()
            #expect(try await Self.next(updates) { $0.isEmpty } == [])
            #expect(try await history.getSessions().isEmpty)
        }
    }

    @Test("getSessions follows pages: more sessions than a page, all of them, most recent first")
    func pages() async throws {
        try await Self.withHub { port in
            try await Self.setPremium(port, "pia")
            let client = try Self.client(port, "pia")
            let history = RemoteHistoryRepository(http: client.http, pageSize: 2)
            // Pairs share a timestamp: a page can end between two entries of the same millisecond.
            let saved = (0..<5).map { Self.session("app-\(9 - $0)", at: Self.now - Int64($0 / 3) * 1000) }
            for session in saved.reversed() {
                let result: HistorySaveResult = await history.saveSession(session)
                #expect(result == .success(session))
            }
            #expect(try await history.getSessions() == saved)
        }
    }

    @Test("A free user's save is featureLocked; reads are refused with feature_locked")
    func freeUser() async throws {
        try await Self.withHub { port in
            let history = try await Self.client(port, "fred").historyRepository()
            #expect(await history.saveSession(Self.session("app-1", at: Self.now)) == .error(.featureLocked))
            await #expect(throws: SessionHubClientError.refused(code: "feature_locked", message: "history is a premium feature",
                                                                retryAfter: nil)) {
                try await history.getSessions()
            }
        }
    }

    @Test("A hub that cannot be reached: the save is a networkError")
    func unreachable() async throws {
        // A port held bound but not listening: refused, and no other test's server can take it.
        let refusing = try RefusingPort()
        let client = try SessionHubClient(url: "ws://127.0.0.1:\(refusing.port)/ws") { HubTestServer.token("pia") }
        let history = await client.historyRepository()
        #expect(await history.saveSession(Self.session("app-1", at: Self.now)) == .error(.networkError))
        await #expect(throws: SessionHubClientError.self) { try await history.getSessions() }
        withExtendedLifetime(refusing) {}
    }

    @Test("A session played on the hub, or saved by another device, appears in its place on the stream (historyUpdated)")
    func playedSessionArrives() async throws {
        try await Self.withHub { port in
            try await Self.setPremium(port, "pia")
            let client = try Self.client(port, "pia")
            try await client.connect()
            let history = await client.historyRepository()
            let earlier = Self.session("app-earlier", at: Self.now - 3_600_000)
            #expect(await history.saveSession(earlier) == .success(earlier))
            let updates = history.sessions
            #expect(try await Self.next(updates) { _ in true } == [earlier])

            let session = try await client.startSolo(scenarioId: "ordering-coffee")
            _ = try await client.say("Un café, por favor", translation: "A coffee, please")
            _ = try await client.end()
            let list = try await Self.next(updates) { $0.count == 2 }
            #expect(list.map(\.sessionId) == [session.sessionId, "app-earlier"])
            #expect(list.first?.dialogLines.map(\.textNative) == ["Un café, por favor"])
            #expect(list.first?.stats != nil)
            #expect(try await history.getSessions() == list)

            // Another device of the same user saves a session: pushed here, put in its place.
            let phone = RemoteHistoryRepository(http: try Self.client(port, "pia").http)
            let between = Self.session("app-between", at: Self.now - 60_000)
            #expect(await phone.saveSession(between) == .success(between))
            let merged = try await Self.next(updates) { $0.count == 3 }
            #expect(merged.map(\.sessionId) == [session.sessionId, "app-between", "app-earlier"])
            await client.close()
        }
    }

    @Test("Over https through a TLS front when the client's URL is wss://; a client that does not trust it gets networkError")
    func overTLS() async throws {
        let (certificate, key) = try await SessionHubClientIntegrationTests.throwAwayCertificate()
        let serverTLS = try NIOSSLContext(configuration: .makeServerConfiguration(certificateChain: [.certificate(certificate)],
                                                                                   privateKey: .privateKey(key)))
        try await Self.withHub { port in
            try await Self.setPremium(port, "pia")
            let front = try await TCPProxy(to: port, tls: serverTLS)
            var trusting = TLSConfiguration.makeClientConfiguration()
            trusting.trustRoots = .certificates([certificate])
            let client = try SessionHubClient(url: "wss://localhost:\(front.port)/ws", tls: trusting) { HubTestServer.token("pia") }
            let history = await client.historyRepository()
            let session = Self.session("app-tls", at: Self.now)
            #expect(await history.saveSession(session) == .success(session))
            #expect(try await history.getSessions() == [session])

            let doubting = try SessionHubClient(url: "wss://localhost:\(front.port)/ws") { HubTestServer.token("pia") }
            #expect(await doubting.historyRepository().saveSession(session) == .error(.networkError))
            await front.stop()
        }
    }

    @Test("A hub that accepts but never answers: the request times out")
    func timeout() async throws {
        try await Self.withHub { port in
            // A front that forwards nothing: the connection opens, no answer ever comes.
            let silent = try await TCPProxy(to: port)
            silent.loseClientBytes(true)
            var http = try HubHTTPClient(url: "ws://127.0.0.1:\(silent.port)/ws") { HubTestServer.token("pia") }
            http.timeout = .milliseconds(300)
            await #expect(throws: SessionHubClientError.timedOut(request: "GET /api/history")) { try await http.get("/api/history") }
            #expect(await RemoteHistoryRepository(http: http).saveSession(Self.session("app-1", at: Self.now)) == .error(.networkError))
            await silent.stop()
        }
    }
}
