import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOPosix
import SessionHubServer
import Testing
import WebSocket
import WebSocketTransport

/// The operator dashboard on the real server: the page and its assets (`/admin`), and the live
/// feed (`/admin/feed`) — its authentication, its bounds, and snapshots that follow the live
/// sessions of real players. The page itself runs in headless Chromium in scripts/dashboard-test.sh.
@Suite("Dashboard", .timeLimit(.minutes(2)))
struct DashboardIntegrationTests {
    static let admin = HubTestServer.token("ops", name: "Ops", admin: true)

    // MARK: Page and assets

    private struct Page: @unchecked Sendable {
        let status: Int
        let headers: [String: String]
        let body: String
        func header(_ name: String) -> String? {
            headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    private static func fetch(_ method: String, port: Int, _ path: String) async throws -> Page {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(path)")))
        request.httpMethod = method
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers[key] = value }
        }
        return Page(status: http.statusCode, headers: headers, body: String(decoding: data, as: UTF8.self))
    }

    @Test func pageAndAssetsAreServedWithAStrictPolicy() async throws {
        try await HubTestServer.with { port in
            for path in ["/admin", "/admin/"] {
                let page = try await Self.fetch("GET", port: port, path)
                #expect(page.status == 200, "\(path)")
                #expect(page.header("Content-Type") == "text/html; charset=utf-8")
                #expect(page.header("Cache-Control") == "no-cache")
                let policy = try #require(page.header("Content-Security-Policy"))
                #expect(policy.contains("default-src 'self'"))
                #expect(policy.contains("script-src 'self'"))
                #expect(policy.contains("connect-src 'self'"))
                #expect(policy.contains("frame-ancestors 'none'"))
                #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"))
                #expect(page.header("X-Content-Type-Options") == "nosniff")
                #expect(page.body.contains(#"<script src="/admin/dashboard.js" defer></script>"#))
                #expect(page.body.contains(#"<link rel="stylesheet" href="/admin/dashboard.css">"#))
                #expect(page.body.contains(#"type="password""#))
                // No inline script or style, no inline event handler: every <script> has a src.
                let scripts = page.body.components(separatedBy: "<script").dropFirst()
                #expect(scripts.count == 1)
                #expect(scripts.allSatisfy { $0.hasPrefix(" src=") })
                #expect(!page.body.contains("<style") && !page.body.contains(" style=") && !page.body.contains(" onclick="))
            }

            let css = try await Self.fetch("GET", port: port, "/admin/dashboard.css")
            #expect(css.status == 200)
            #expect(css.header("Content-Type") == "text/css; charset=utf-8")
            #expect(css.header("Cache-Control") == "no-cache")
            #expect(css.body.contains(".session"))
            let js = try await Self.fetch("GET", port: port, "/admin/dashboard.js")
            #expect(js.status == 200)
            #expect(js.header("Content-Type") == "text/javascript; charset=utf-8")
            #expect(js.header("Cache-Control") == "no-cache")
            #expect(js.header("Content-Security-Policy") != nil)
            #expect(js.body.contains("/admin/feed"))
            #expect(js.body.contains("sessionStorage"))
            #expect(!js.body.contains("innerHTML"))
            #expect(!js.body.contains("localStorage"))

            let head = try await Self.fetch("HEAD", port: port, "/admin")
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(try await Self.fetch("POST", port: port, "/admin").status == 405)
            #expect(try await Self.fetch("GET", port: port, "/admin/feed").status == 426)
            #expect(try await Self.fetch("GET", port: port, "/admin/nothing.js").status != 200)
            // The admin API is unchanged beside the page.
            #expect(try await Self.fetch("GET", port: port, "/admin/api/server").status == 401)
        }
    }

    // MARK: Feed authentication

    @Test func feedRefusesAMissingBadOrNonAdminTokenWith1008() async throws {
        try await HubTestServer.with { port in
            let now = Int(Date().timeIntervalSince1970)
            let expired = TokenAuthority(secret: HubTestServer.secret).mint(
                TokenClaims(sub: "ops", name: "Ops", iat: now - 100, exp: now - 10, role: "admin"))
            let forged = TokenAuthority(secret: Array("some-other-secret-entirely".utf8)).mint(
                TokenClaims(sub: "ops", name: "Ops", iat: now, exp: now + 60, role: "admin"))
            let cases: [(first: String, reason: String)] = [
                (#"{"type":"auth"}"#, "auth_required"),
                (#"{"type":"hello","token":"\#(Self.admin)"}"#, "auth_required"),
                ("not json", "auth_required"),
                (#"{"type":"auth","token":"garbage"}"#, "token_malformed"),
                (#"{"type":"auth","token":"\#(forged)"}"#, "token_signature"),
                (#"{"type":"auth","token":"\#(expired)"}"#, "token_expired"),
                (#"{"type":"auth","token":"\#(HubTestServer.token("ana"))"}"#, "forbidden"),
            ]
            for (first, reason) in cases {
                let feed = try await FeedClient.connect(port: port)
                feed.send(first)
                let closed = await feed.closed()
                #expect(closed?.code == .policyViolation, "\(reason)")
                #expect(closed?.reason.hasPrefix(reason + ":") == true, "\(reason): \(closed?.reason ?? "nil")")
                #expect(await feed.messages.isEmpty, "no data before authentication (\(reason))")
            }
            // A binary first message.
            let binary = try await FeedClient.connect(port: port)
            binary.connection.send(.binary(ByteBuffer(bytes: [1, 2, 3])))
            #expect(await binary.closed()?.code == .unsupportedData)
        }
    }

    @Test func feedClosesWhenTheTokenExpires() async throws {
        try await HubTestServer.with { port in
            let now = Int(Date().timeIntervalSince1970)
            let shortLived = TokenAuthority(secret: HubTestServer.secret).mint(
                TokenClaims(sub: "ops", name: "Ops", iat: now, exp: now + 10, role: "admin"))
            let feed = try await FeedClient.connect(port: port)
            feed.send(#"{"type":"auth","token":"\#(shortLived)"}"#)
            // 10 s (9 to 10 left, as `now` is whole seconds): on a loaded machine the connection
            // and the welcome took more than the 3 to 4 s an earlier version of this test left.
            #expect(await feed.next(type: "welcome") != nil)
            let closed = await feed.closed(seconds: 20)
            #expect(closed?.code == .policyViolation)
            #expect(closed?.reason.hasPrefix("token_expired:") == true, "\(closed?.reason ?? "nil")")
        }
    }

    @Test func feedRefusesAnotherSitesPage() async throws {
        try await HubTestServer.with { port in
            do {
                _ = try await FeedClient.connect(port: port, headers: [("Origin", "https://evil.example")])
                Issue.record("a cross-origin upgrade was accepted")
            } catch let error as WebSocketClientError {
                guard case .upgradeRefused(let status, _) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(status == 403)
            }
            // The page's own origin is fine.
            let same = try await FeedClient.connect(port: port, headers: [("Origin", "http://127.0.0.1:\(port)")])
            same.send(#"{"type":"auth","token":"\#(Self.admin)"}"#)
            #expect(await same.next(type: "welcome") != nil)
            same.connection.close()
        }
    }

    // MARK: Snapshots

    @Test func snapshotsListLiveSessionsAndFollowTheirLines() async throws {
        try await HubTestServer.with { port in
            let ana = try await HubTestClient.connect(port: port, token: HubTestServer.token("ana", name: "Ana"))
            _ = try #require(await ana.expect("welcome"))
            let ben = try await HubTestClient.connect(port: port, token: HubTestServer.token("ben", name: "Ben"))
            _ = try #require(await ben.expect("welcome"))
            ana.send(["type": "host", "id": "h", "scenarioId": "hotel-check-in"])
            let joined = try #require(await ana.expect("joined"))
            let code = try #require(joined.object("session")?.string("joinCode"))
            let sessionId = try #require(joined.object("session")?.string("sessionId"))
            ben.send(["type": "join", "id": "j", "code": code])
            _ = try #require(await ben.expect("joined"))

            let feed = try await FeedClient.connect(port: port)
            feed.send(#"{"type":"auth","token":"\#(Self.admin)"}"#)
            let welcome = try #require(await feed.next(type: "welcome"))
            #expect((welcome["operator"] as? [String: Any])?["userId"] as? String == "ops")
            #expect(welcome["intervalMs"] as? Int == 1000)

            // A snapshot lists the session with both players, connected.
            let first = try #require(await feed.next(type: "snapshot") { snapshot in
                Self.session(sessionId, in: snapshot).map { ($0["participants"] as? [Any])?.count == 2 } ?? false
            })
            let server = try #require(first["server"] as? [String: Any])
            #expect(server["liveSessions"] as? Int == 1)
            #expect(server["sharedSessions"] as? Int == 1)
            #expect(server["seats"] as? Int == 2)
            #expect(server["connectedSeats"] as? Int == 2)
            #expect((server["connections"] as? Int ?? 0) >= 3)
            #expect(server["dashboards"] as? Int == 1)
            #expect(first["sessionCount"] as? Int == 1)
            #expect(first["truncated"] as? Bool == false)
            let listed = try #require(Self.session(sessionId, in: first))
            #expect(listed["joinCode"] as? String == code)
            #expect((listed["scenario"] as? [String: Any])?["id"] as? String == "hotel-check-in")
            let people = try #require(listed["participants"] as? [[String: Any]])
            #expect(Set(people.compactMap { $0["displayName"] as? String }) == ["Ana", "Ben"])
            #expect(people.allSatisfy { $0["status"] as? String == "connected" })
            #expect((listed["lines"] as? [Any])?.isEmpty == true)

            // A line spoken now shows up in a later snapshot, with the message rates.
            ana.send(["type": "say", "id": "s1", "textNative": "Bonjour, bienvenue à l'hôtel du tableau de bord.",
                      "textTranslated": "Hello, welcome to the dashboard hotel."])
            _ = try #require(await ana.expect("line"))
            let later = try #require(await feed.next(type: "snapshot") { snapshot in
                let lines = Self.session(sessionId, in: snapshot)?["lines"] as? [[String: Any]] ?? []
                return lines.contains { $0["textNative"] as? String == "Bonjour, bienvenue à l'hôtel du tableau de bord." }
            })
            let line = try #require((Self.session(sessionId, in: later)?["lines"] as? [[String: Any]])?.last)
            #expect(line["speakerId"] as? String == "ana")
            #expect(line["id"] as? String == "l1")
            #expect(Self.session(sessionId, in: later)?["lineCount"] as? Int == 1)
            let rates = try #require(later["server"] as? [String: Any])
            #expect(rates["messagesInPerSecond"] is Double || rates["messagesInPerSecond"] is Int)
            #expect((rates["messagesInTotal"] as? Int ?? 0) >= 3)

            // Ben drops: the next snapshots show him in his grace window.
            ben.drop()
            let grace = try #require(await feed.next(type: "snapshot") { snapshot in
                let people = Self.session(sessionId, in: snapshot)?["participants"] as? [[String: Any]] ?? []
                return people.contains { $0["userId"] as? String == "ben" && $0["status"] as? String == "grace" }
            })
            #expect((grace["server"] as? [String: Any])?["graceSeats"] as? Int == 1)

            // The session ends: it leaves the list.
            ana.send(["type": "end", "id": "e"])
            _ = try #require(await ana.expect("ended"))
            #expect(await feed.next(type: "snapshot") { ($0["sessions"] as? [Any])?.isEmpty == true } != nil)
            feed.connection.close()
        }
    }

    @Test func feedsAreBoundedAndTickOnlyWhileOpen() async throws {
        try await HubTestServer.with { port in
            var feeds: [FeedClient] = []
            for _ in 0..<8 {
                let feed = try await FeedClient.connect(port: port)
                feed.send(#"{"type":"auth","token":"\#(Self.admin)"}"#)
                #expect(await feed.next(type: "welcome") != nil)
                feeds.append(feed)
            }
            let ninth = try await FeedClient.connect(port: port)
            let refused = await ninth.closed()
            #expect(refused?.code == .tryAgainLater)
            #expect(refused?.reason.contains("too many dashboard feeds") == true)

            // Each open feed gets about one snapshot a second: four in a row, spaced by the
            // server's clock (a flood or a stop fails; a slow test machine does not).
            let counted = feeds[0]
            var times: [Int64] = []
            for _ in 0..<4 {
                let snapshot = try #require(await counted.next(type: "snapshot", seconds: 10), "a snapshot within 10 s")
                times.append(try #require((snapshot["serverTime"] as? NSNumber)?.int64Value))
            }
            let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
            #expect(gaps.allSatisfy { (500...5_000).contains($0) }, "gaps between snapshots: \(gaps) ms")

            // A closed feed frees its place.
            feeds.removeLast().connection.close()
            // A retry that gets no welcome is closed, so it cannot hold the freed place.
            var admitted = false
            let deadline = ContinuousClock.now + .seconds(30)
            while !admitted, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                let feed = try await FeedClient.connect(port: port)
                feed.send(#"{"type":"auth","token":"\#(Self.admin)"}"#)
                if await feed.next(type: "welcome", seconds: 10) != nil {
                    admitted = true
                    feeds.append(feed)
                } else {
                    feed.connection.close()
                }
            }
            #expect(admitted)
            for feed in feeds { feed.connection.close() }
        }
    }

    /// Sockets that open the feed and never authenticate (three times the waiting room) take
    /// none of the operators' places: all 8 operators still get in, and the oldest squatters
    /// were closed with 1013 to make room.
    @Test func unauthenticatedFeedsCannotKeepOperatorsOut() async throws {
        // A long auth deadline, so that on a slow machine the first squatter is evicted rather
        // than timed out before the operators arrive.
        try await HubTestServer.with(persistence: .inMemory(), adjust: { $0.dashboard.authTimeout = .seconds(60) }) { port, _ in
            var squatters: [FeedClient] = []
            for _ in 0..<48 { squatters.append(try await FeedClient.connect(port: port)) }
            var operators: [FeedClient] = []
            for index in 0..<8 {
                let feed = try await FeedClient.connect(port: port)
                feed.send(#"{"type":"auth","token":"\#(Self.admin)"}"#)
                #expect(await feed.next(type: "welcome") != nil, "operator \(index + 1)")
                operators.append(feed)
            }
            let evicted = await squatters[0].closed()
            #expect(evicted?.code == .tryAgainLater)
            #expect(evicted?.reason.contains("waiting for auth") == true, "\(evicted?.reason ?? "nil")")
            for feed in squatters + operators { feed.connection.close() }
        }
    }

    private static func session(_ id: String, in snapshot: FeedMessage) -> [String: Any]? {
        (snapshot["sessions"] as? [[String: Any]])?.first { $0["sessionId"] as? String == id }
    }
}

/// One JSON message of the feed.
struct FeedMessage: @unchecked Sendable {
    let raw: [String: Any]
    var type: String? { raw["type"] as? String }
    subscript(_ key: String) -> Any? { raw[key] }
}

/// A client of `/admin/feed`: every message kept, waits bounded by a timeout.
actor FeedClient {
    let connection: WebSocketClientConnection
    private(set) var messages: [FeedMessage] = []
    private var closedWith: (code: WebSocketCloseCode?, reason: String)?
    private var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]

    private init(connection: WebSocketClientConnection) {
        self.connection = connection
    }

    static func connect(port: Int, headers: [(name: String, value: String)] = []) async throws -> FeedClient {
        let connection = try await WebSocketClient.connect(
            to: WebSocketURL(parsing: "ws://127.0.0.1:\(port)/admin/feed"),
            configuration: WebSocketClientConfiguration(headers: headers),
            group: MultiThreadedEventLoopGroup.singleton)
        let client = FeedClient(connection: connection)
        await client.startReading()
        return client
    }

    nonisolated func send(_ text: String) {
        connection.send(text: text)
    }

    private func startReading() {
        let events = connection.events
        Task { [weak self] in
            for await event in events {
                switch event {
                case .message(.text(let buffer)):
                    let object = try? JSONSerialization.jsonObject(with: Data(String(buffer: buffer).utf8)) as? [String: Any]
                    await self?.received(FeedMessage(raw: object ?? ["type": "unreadable"]))
                case .message(.binary): break
                case .closed(let code, let reason): await self?.closed(code, reason)
                }
            }
            await self?.closed(nil, "stream ended")
        }
    }

    private func received(_ object: FeedMessage) {
        messages.append(object)
        wake()
    }

    private func closed(_ code: WebSocketCloseCode?, _ reason: String) {
        if closedWith == nil { closedWith = (code, reason) }
        wake()
    }

    private func wake() {
        let all = waiters
        waiters = [:]
        for waiter in all.values { waiter.resume() }
    }

    /// Waits for something to arrive, at most `seconds`.
    private func waitForChange(seconds: Double) async {
        let id = UUID()
        await withCheckedContinuation { continuation in
            waiters[id] = continuation
            Task { [weak self] in
                try? await Task.sleep(for: .seconds(seconds))
                await self?.timeOut(id)
            }
        }
    }

    private func timeOut(_ id: UUID) {
        waiters.removeValue(forKey: id)?.resume()
    }

    /// The first message of `type` not yet consumed that satisfies `match`, waiting up to `seconds`.
    func next(type: String, seconds: Double = 8,
              where match: @Sendable (FeedMessage) -> Bool = { _ in true }) async -> FeedMessage? {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            if let index = messages.firstIndex(where: { $0.type == type && match($0) }) {
                let found = messages[index]
                messages.removeSubrange(...index)
                return found
            }
            messages.removeAll { $0.type == type }
            let left = deadline - ContinuousClock.now
            if left <= .zero || closedWith != nil { return nil }
            await waitForChange(seconds: Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18)
        }
    }

    /// How many messages of `type` arrived and are still kept.
    func count(type: String) -> Int {
        messages.filter { $0.type == type }.count
    }

    /// How the connection closed, waiting up to `seconds`.
    func closed(seconds: Double = 8) async -> (code: WebSocketCloseCode?, reason: String)? {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while closedWith == nil, ContinuousClock.now < deadline {
            await waitForChange(seconds: 0.5)
        }
        return closedWith
    }
}
