import Foundation
import HubDomain
import HubStorage
import Logging
import SessionHubServer
import Synchronization
import Testing

/// The operator API (`/admin/api/*`) and `/readyz` on the real server, driven over HTTP while
/// players play over WebSocket.
@Suite("Admin API", .timeLimit(.minutes(2)))
struct AdminAPIIntegrationTests {
    static let admin = HubTestServer.token("ops", name: "Ops", admin: true)

    private static func databasePath() -> (path: String, remove: @Sendable () -> Void) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hub-admin-\(UUID().uuidString)").path
        return (dir + "/data/sessionhub.sqlite", { try? FileManager.default.removeItem(atPath: dir) })
    }

    private static func get(_ port: Int, _ path: String, token: String? = admin) async throws -> HTTPTestClient.Reply {
        try await HTTPTestClient.request("GET", port: port, path, token: token)
    }

    /// Checks the API error shape and returns its code.
    private static func errorCode(_ reply: HTTPTestClient.Reply, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        let json = reply.json
        #expect(json?["error"] as? Bool == true, sourceLocation: sourceLocation)
        #expect(json?["message"] is String, sourceLocation: sourceLocation)
        #expect(json?.keys.contains("details") == true && json?["details"] is NSNull, sourceLocation: sourceLocation)
        return json?["code"] as? String
    }

    /// A connected, welcomed player.
    private static func player(_ port: Int, _ user: String) async throws -> HubTestClient {
        let client = try await HubTestClient.connect(port: port, token: HubTestServer.token(user))
        _ = try #require(await client.expect("welcome"))
        return client
    }

    /// `host` hosts `scenario`, `guests` join; returns the session id.
    private static func shared(_ port: Int, host: HubTestClient, guests: [HubTestClient],
                               scenario: String = "hotel-check-in") async throws -> String {
        host.send(["type": "host", "id": "h", "scenarioId": scenario])
        let joined = try #require(await host.expect("joined"))
        let session = try #require(joined.object("session"))
        let code = try #require(session.string("joinCode"))
        for guest in guests {
            guest.send(["type": "join", "id": "j", "code": code])
            _ = try #require(await guest.expect("joined"))
        }
        return try #require(session.string("sessionId"))
    }

    private static func say(_ client: HubTestClient, _ text: String, id: String) async throws {
        client.send(["type": "say", "id": id, "textNative": text, "textTranslated": ""])
        while true {
            let line = try #require(await client.expect("line"))
            if line.string("ref") == id { return }
        }
    }

    // MARK: Authentication

    @Test func everyRouteWantsAnAdminToken() async throws {
        try await HubTestServer.with { port in
            let routes: [(String, String)] = [
                ("GET", "/admin/api/server"), ("GET", "/admin/api/sessions"), ("GET", "/admin/api/sessions/abc"),
                ("POST", "/admin/api/sessions/abc/end"), ("DELETE", "/admin/api/sessions/abc/participants/ana"),
            ]
            let now = Int(Date().timeIntervalSince1970)
            let expired = TokenAuthority(secret: HubTestServer.secret).mint(
                TokenClaims(sub: "ops", name: "Ops", iat: now - 100, exp: now - 10, role: "admin"))
            let forged = TokenAuthority(secret: Array("some-other-secret-entirely".utf8)).mint(
                TokenClaims(sub: "ops", name: "Ops", iat: now, exp: now + 60, role: "admin"))
            for (method, path) in routes {
                let none = try await HTTPTestClient.request(method, port: port, path)
                #expect(none.status == 401, "\(method) \(path)")
                #expect(Self.errorCode(none) == "token_missing")
                let player = try await HTTPTestClient.request(method, port: port, path, token: HubTestServer.token("ana"))
                #expect(player.status == 403, "\(method) \(path)")
                #expect(Self.errorCode(player) == "forbidden")
                let old = try await HTTPTestClient.request(method, port: port, path, token: expired)
                #expect(old.status == 401)
                #expect(Self.errorCode(old) == "token_expired")
                let bad = try await HTTPTestClient.request(method, port: port, path, token: forged)
                #expect(bad.status == 401)
                #expect(Self.errorCode(bad) == "token_signature")
            }
            // Unknown routes and methods, once authenticated.
            let unknown = try await Self.get(port, "/admin/api/nothing-here")
            #expect(unknown.status == 404)
            #expect(Self.errorCode(unknown) == "not_found")
            let wrong = try await HTTPTestClient.request("DELETE", port: port, "/admin/api/sessions", token: Self.admin)
            #expect(wrong.status == 405)
            #expect(Self.errorCode(wrong) == "method_not_allowed")
        }
    }

    // MARK: Server

    @Test func serverReportsConnectionsSessionsUptimeVersionAndBuild() async throws {
        try await HubTestServer.with { port in
            let ana = try await Self.player(port, "ana")
            let ben = try await Self.player(port, "ben")
            let idle = try await Self.player(port, "idle")
            ana.send(["type": "startSolo", "id": "s", "scenarioId": "ordering-coffee"])
            _ = try #require(await ana.expect("joined"))
            _ = try await Self.shared(port, host: ben, guests: [])

            let reply = try await Self.get(port, "/admin/api/server")
            #expect(reply.status == 200)
            let json = try #require(reply.json)
            #expect(json["connections"] as? Int == 3)
            #expect(json["liveSessions"] as? Int == 2)
            #expect(json["sharedSessions"] as? Int == 1)
            #expect(json["seats"] as? Int == 2)
            #expect(json["connectedSeats"] as? Int == 2)
            #expect(json["version"] as? String == BuildInfo.version)
            #expect(json["protocolVersion"] as? Int == 1)
            #expect(json["draining"] as? Bool == false)
            let uptime = try #require(json["uptimeSeconds"] as? Int)
            #expect(uptime >= 0 && uptime < 120)
            let started = try #require((json["startedAt"] as? NSNumber)?.int64Value)
            let serverTime = try #require((json["serverTime"] as? NSNumber)?.int64Value)
            #expect(serverTime >= started)
            let build = try #require(json["build"] as? [String: Any])
            #expect(build["configuration"] as? String == BuildInfo.configuration)
            #expect(build["platform"] as? String == BuildInfo.platform)
            #expect(build["swift"] as? String == BuildInfo.compiler)
            let storage = try #require(json["storage"] as? [String: Any])
            #expect(storage["kind"] as? String == "memory")
            #expect(storage["reachable"] as? Bool == true)

            idle.drop()
            var connections = 3
            for _ in 0..<100 where connections != 2 {
                try await Task.sleep(for: .milliseconds(20))
                connections = try await Self.get(port, "/admin/api/server").json?["connections"] as? Int ?? -1
            }
            #expect(connections == 2)
        }
    }

    // MARK: Sessions

    @Test func sessionsListAndDetailShowTheLiveState() async throws {
        try await HubTestServer.with { port in
            let ana = try await Self.player(port, "ana")
            let ben = try await Self.player(port, "ben")
            let cleo = try await Self.player(port, "cleo")
            let sessionId = try await Self.shared(port, host: ana, guests: [ben, cleo])
            try await Self.say(ana, "Bonjour, bienvenue.", id: "a1")
            try await Self.say(ben, "Bonjour, je ai une réservation.", id: "b1")
            ana.send(["type": "recast", "id": "r", "lineId": "l2", "correctedText": "Bonjour, j'ai une réservation.",
                      "issueTypes": ["grammar"]])
            _ = try #require(await ana.expect("recast"))
            cleo.drop()
            _ = try #require(await ana.expect("participants"))   // cleo disconnected
            let solo = try await Self.player(port, "sol")
            solo.send(["type": "startSolo", "id": "s", "scenarioId": "ordering-coffee"])
            let soloId = try #require(await solo.expect("joined")?.object("session")?.string("sessionId"))

            let list = try await Self.get(port, "/admin/api/sessions")
            #expect(list.status == 200)
            #expect(list.json?["count"] as? Int == 2)
            let sessions = try #require(list.json?["sessions"] as? [[String: Any]])
            #expect(sessions.map { $0["sessionId"] as? String } == [sessionId, soloId])   // oldest first
            let view = JSONObject(sessions[0])
            #expect(view.string("mode") == "shared")
            #expect(JSONObject(sessions[1]).string("mode") == "solo")
            #expect(view.object("scenario")?.string("id") == "hotel-check-in")
            #expect(view.object("scenario")?.string("title") == "Checking into a Hotel")
            #expect(view.object("host")?.string("userId") == "ana")
            #expect(view.string("phase") == "live")
            #expect(view.int("lineCount") == 2)
            #expect(view.int("recastCount") == 1)
            #expect(view.int("seq") ?? 0 >= 7)
            #expect(view.int("ageSeconds") ?? -1 >= 0)
            #expect(view["lastActivityAt"] is NSNumber)
            let rate = try #require(view["messagesPerSecond"] as? Double)
            #expect(rate > 0)          // three messages in the last few seconds
            #expect(view["lines"] == nil, "the list carries no transcript")
            let participants = view.objects("participants")
            #expect(participants.map { $0.string("userId") } == ["ana", "ben", "cleo"])
            #expect(participants.map { $0.string("displayName") } == ["Ana", "Ben", "Cleo"])
            #expect(participants.map { $0.string("role") } == ["Receptionist", "Guest", "Porter"])
            #expect(participants.map { $0.string("status") } == ["connected", "connected", "grace"])
            #expect(participants.map { $0["connected"] as? Bool } == [true, true, false])
            #expect(participants.map { $0["inGrace"] as? Bool } == [false, false, true])
            #expect((participants[2].int("graceSecondsLeft") ?? 0) > 0)
            #expect(participants[0]["graceSecondsLeft"] is NSNull)

            let detail = try await Self.get(port, "/admin/api/sessions/\(sessionId)")
            #expect(detail.status == 200)
            let full = try #require(detail.json.map(JSONObject.init))
            #expect(full.objects("lines").map { $0.string("textNative") } == ["Bonjour, bienvenue.", "Bonjour, je ai une réservation."])
            #expect(full.objects("lines").map { $0.string("speakerId") } == ["ana", "ben"])
            #expect(full.objects("recasts").first?.string("correctedText") == "Bonjour, j'ai une réservation.")
            #expect(full.objects("recasts").first?.string("authorId") == "ana")
            #expect(full.string("joinCode")?.count == 6)

            let missing = try await Self.get(port, "/admin/api/sessions/0123456789abcdef0123456789abcdef")
            #expect(missing.status == 404)
            #expect(Self.errorCode(missing) == "not_found")
        }
    }

    @Test func anOperatorEndReachesThePlayersAndTheirHistory() async throws {
        let (path, remove) = Self.databasePath()
        defer { remove() }
        try await HubTestServer.with(persistence: try HubPersistence.sqlite(path: path, logger: Logger(label: "test"))) { port, _ in
            for user in ["ana", "ben"] {
                let premium = try await HTTPTestClient.request("PUT", port: port, "/admin/users/\(user)/premium",
                                                               token: Self.admin, body: ["isPremium": true])
                #expect(premium.status == 200)
            }
            let ana = try await Self.player(port, "ana")
            let ben = try await Self.player(port, "ben")
            let sessionId = try await Self.shared(port, host: ana, guests: [ben])
            try await Self.say(ana, "Bonjour.", id: "a1")
            try await Self.say(ben, "Bonsoir.", id: "b1")

            let reply = try await HTTPTestClient.request("POST", port: port, "/admin/api/sessions/\(sessionId)/end", token: Self.admin)
            #expect(reply.status == 200)
            let body = try #require(reply.json.map(JSONObject.init))
            #expect(body.string("sessionId") == sessionId)
            #expect(body.string("cause") == "operatorEnded")
            #expect(body.objects("participants").map { $0.string("userId") } == ["ana", "ben"])
            #expect(body.objects("participants").map { $0.string("history") } == ["success", "success"])

            for client in [ana, ben] {
                let ended = try #require(await client.expect("ended"))
                #expect(ended.string("sessionId") == sessionId)
                #expect(ended.string("cause") == "operatorEnded")
                #expect(ended["ref"] == nil || ended["ref"] is NSNull)
                #expect(try #require(await client.expect("left")).string("reason") == "ended")
            }
            // Saved like any end.
            for user in ["ana", "ben"] {
                let entry = try await HTTPTestClient.request("GET", port: port, "/api/history/\(sessionId)",
                                                             token: HubTestServer.token(user))
                #expect(entry.status == 200)
                #expect((entry.json?["dialogLines"] as? [[String: Any]])?.map { $0["textNative"] as? String } == ["Bonjour.", "Bonsoir."])
            }
            // Gone from the live list; ending or reading it again is a 404.
            #expect(try await Self.get(port, "/admin/api/sessions").json?["count"] as? Int == 0)
            let again = try await HTTPTestClient.request("POST", port: port, "/admin/api/sessions/\(sessionId)/end", token: Self.admin)
            #expect(again.status == 404)
            #expect(Self.errorCode(again) == "not_found")
            #expect(try await Self.get(port, "/admin/api/sessions/\(sessionId)").status == 404)
            let wrong = try await HTTPTestClient.request("GET", port: port, "/admin/api/sessions/\(sessionId)/end", token: Self.admin)
            #expect(wrong.status == 405)
            // The players are back in the lobby.
            ana.send(["type": "startSolo", "id": "again", "scenarioId": "ordering-coffee"])
            #expect(try #require(await ana.expect("joined")).string("ref") == "again")
        }
    }

    @Test func removingAParticipantSendsThemLeftRemoved() async throws {
        try await HubTestServer.with { port in
            let ana = try await Self.player(port, "ana")
            let ben = try await Self.player(port, "ben")
            let cleo = try await Self.player(port, "cleo")
            let sessionId = try await Self.shared(port, host: ana, guests: [ben, cleo])

            let reply = try await HTTPTestClient.request("DELETE", port: port, "/admin/api/sessions/\(sessionId)/participants/ben",
                                                         token: Self.admin)
            #expect(reply.status == 200)
            #expect(reply.json?["removed"] as? String == "ben")
            #expect(reply.json?["sessionEnded"] as? Bool == false)
            #expect(reply.json?["hostId"] as? String == "ana")
            #expect(try #require(await ben.expect("left")).string("reason") == "removed")
            for client in [ana, cleo] {
                while true {
                    let change = try #require(await client.expect("participants")).object("change")
                    if change?.string("kind") == "removed" {
                        #expect(change?.string("userId") == "ben")
                        break
                    }
                }
            }
            let after = try #require(await Self.get(port, "/admin/api/sessions/\(sessionId)").json.map(JSONObject.init))
            #expect(after.objects("participants").map { $0.string("userId") } == ["ana", "cleo"])
            #expect(after.objects("departed").map { $0.string("userId") } == ["ben"])
            // Ben is back in the lobby and free to play elsewhere.
            ben.send(["type": "startSolo", "id": "s", "scenarioId": "ordering-coffee"])
            #expect(try #require(await ben.expect("joined")).string("ref") == "s")

            // 404s: removed already, never there, unknown session.
            for path in ["/admin/api/sessions/\(sessionId)/participants/ben",
                         "/admin/api/sessions/\(sessionId)/participants/nobody",
                         "/admin/api/sessions/nope/participants/ana"] {
                let missing = try await HTTPTestClient.request("DELETE", port: port, path, token: Self.admin)
                #expect(missing.status == 404, "\(path)")
                #expect(Self.errorCode(missing) == "not_found")
            }

            // Removing the host hands hosting on; removing the last one ends the session.
            let host = try await HTTPTestClient.request("DELETE", port: port, "/admin/api/sessions/\(sessionId)/participants/ana",
                                                        token: Self.admin)
            #expect(host.json?["hostId"] as? String == "cleo")
            #expect(try #require(await cleo.expect("hostChanged")).string("userId") == "cleo")
            let last = try await HTTPTestClient.request("DELETE", port: port, "/admin/api/sessions/\(sessionId)/participants/cleo",
                                                        token: Self.admin)
            #expect(last.json?["sessionEnded"] as? Bool == true)
            #expect(try await Self.get(port, "/admin/api/sessions/\(sessionId)").status == 404)
        }
    }

    // MARK: Readiness

    @Test func readyzIsReadyOnAWorkingStoreAndNotWhenTheStoreIsGone() async throws {
        let (path, remove) = Self.databasePath()
        defer { remove() }
        let store = try SQLiteStore(path: path)
        let journal = SQLiteJournal(database: store.database)
        let persistence = HubPersistence(journal: journal, history: store, learners: store,
                                         stores: HubStores(profiles: store, history: store, progress: store),
                                         close: { journal.close(); store.close() })
        try await HubTestServer.with(persistence: persistence) { port, _ in
            let ready = try await Self.get(port, "/readyz", token: nil)
            #expect(ready.status == 200)
            #expect(ready.json?["status"] as? String == "ready")
            #expect((ready.json?["storage"] as? [String: Any])?["kind"] as? String == "sqlite")
            #expect((ready.json?["storage"] as? [String: Any])?["sealedSessions"] as? Int == 0)
            let head = try await HTTPTestClient.request("HEAD", port: port, "/readyz")
            #expect(head.status == 200)
            let post = try await HTTPTestClient.request("POST", port: port, "/readyz")
            #expect(post.status == 405)

            store.database.close()
            let down = try await Self.get(port, "/readyz", token: nil)
            #expect(down.status == 503)
            #expect(down.json?["status"] as? String == "unavailable")
            #expect(down.json?["reason"] as? String == "storage_unreachable")
            #expect((down.json?["storage"] as? [String: Any])?["reachable"] as? Bool == false)
            // Liveness is a different question.
            #expect(try await Self.get(port, "/healthz", token: nil).status == 200)
            let server = try await Self.get(port, "/admin/api/server")
            #expect((server.json?["storage"] as? [String: Any])?["reachable"] as? Bool == false)
        }
    }

    @Test func readyzSaysDrainingWhileTheServerShutsDown() async throws {
        let gate = GatedHistory()
        try await HubTestServer.with(persistence: HubPersistence(journal: InMemorySessionJournal(), history: gate,
                                                                 learners: InMemoryLearnerRecords())) { port, server in
            #expect(try await Self.get(port, "/readyz", token: nil).status == 200)
            let ana = try await Self.player(port, "ana")
            ana.send(["type": "startSolo", "id": "s", "scenarioId": "ordering-coffee"])
            _ = try #require(await ana.expect("joined"))

            // Shutdown ends every session first; the history save is held, so it stays there.
            let shutdown = Task { await server.shutdown() }
            await gate.waitUntilHeld()
            let draining = try await Self.get(port, "/readyz", token: nil)
            #expect(draining.status == 503)
            #expect(draining.json?["reason"] as? String == "draining")
            #expect(try await Self.get(port, "/healthz", token: nil).status == 200)
            #expect(try await Self.get(port, "/admin/api/server").json?["draining"] as? Bool == true)
            // New sessions are refused meanwhile.
            let late = try await Self.player(port, "late")
            late.send(["type": "startSolo", "id": "s", "scenarioId": "ordering-coffee"])
            #expect(try #require(await late.expect("error")).string("code") == "hub_full")

            gate.release()
            await shutdown.value
            let ended = try #require(await ana.expect("ended"))
            #expect(ended.string("cause") == "serverShutdown")
        }
    }
}

/// A history writer whose first save waits until the test releases it.
private final class GatedHistory: HistoryWriter {
    private struct State {
        var held: CheckedContinuation<Void, Never>?
        var arrived = false
        var arrival: CheckedContinuation<Void, Never>?
        var released = false
    }

    private let state = Mutex(State())

    func save(_ session: EndedSession) async -> [String: HistoryWriteResult] {
        await withCheckedContinuation { (held: CheckedContinuation<Void, Never>) in
            let (arrival, go) = state.withLock { state -> (CheckedContinuation<Void, Never>?, Bool) in
                state.arrived = true
                defer { state.arrival = nil }
                if state.released { return (state.arrival, true) }
                state.held = held
                return (state.arrival, false)
            }
            arrival?.resume()
            if go { held.resume() }
        }
        return Dictionary(uniqueKeysWithValues: session.participants.map { ($0.userId, .error(.featureLocked)) })
    }

    func waitUntilHeld() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let already = state.withLock { state -> Bool in
                if state.arrived { return true }
                state.arrival = waiter
                return false
            }
            if already { waiter.resume() }
        }
    }

    func release() {
        let held = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.released = true
            defer { state.held = nil }
            return state.held
        }
        held?.resume()
    }
}

/// The JSON log format and the redaction that keeps credentials out of every log line.
@Suite("Operator logs")
struct OperatorLogTests {
    /// Collects lines written by a handler.
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        var sink: JSONLogHandler.Sink { JSONLogHandler.Sink { line in self.lines.withLock { $0.append(line) } } }
    }

    private static let jwt = HubTestServer.token("ana")

    @Test func eachEventIsOneJSONObjectWithTheDocumentedKeys() throws {
        let lines = Lines()
        var logger = Logger(label: "sessionhub.test") { JSONLogHandler(label: $0, level: .info, sink: lines.sink) }
        logger[metadataKey: "conn"] = "7"
        logger.debug("not written below info")
        logger.info("hub \"ready\"\nsecond line", metadata: ["scenarios": "10", "nested": ["a": "1", "b": ["x", "y"]]])
        logger.error("failed", metadata: ["error": "disk full"])
        #expect(lines.all.count == 2)
        let first = try #require(lines.all.first)
        #expect(!first.contains("\n"))
        #expect(first.hasPrefix("{\"timestamp\":\""))
        let keys = ["\"timestamp\"", "\"level\"", "\"label\"", "\"message\"", "\"metadata\"", "\"source\""]
        let positions = keys.map { first.range(of: $0)?.lowerBound }
        #expect(!positions.contains(nil))
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted(), "keys in documented order")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        #expect(object["level"] as? String == "info")
        #expect(object["label"] as? String == "sessionhub.test")
        #expect(object["message"] as? String == "hub \"ready\"\nsecond line")
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata["conn"] as? String == "7")
        #expect(metadata["scenarios"] as? String == "10")
        #expect((metadata["nested"] as? [String: Any])?["b"] as? [String] == ["x", "y"])
        let timestamp = try #require(object["timestamp"] as? String)
        #expect(timestamp.count == 24 && timestamp.hasSuffix("Z"))
        let second = try #require(try JSONSerialization.jsonObject(with: Data(lines.all[1].utf8)) as? [String: Any])
        #expect(second["level"] as? String == "error")
    }

    @Test func timestampsAreRFC3339InUTCWithMilliseconds() {
        #expect(JSONLogHandler.timestamp(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(JSONLogHandler.timestamp(Date(timeIntervalSince1970: 1_795_435_964.25)) == "2026-11-23T12:12:44.250Z")
        #expect(JSONLogHandler.timestamp(Date(timeIntervalSince1970: 951_782_400.5)) == "2000-02-29T00:00:00.500Z")
        #expect(JSONLogHandler.timestamp(Date(timeIntervalSince1970: 4_107_542_399.875)) == "2100-02-28T23:59:59.875Z")
    }

    @Test func credentialsNeverReachALine() throws {
        let lines = Lines()
        let logger = Logger(label: "t") { JSONLogHandler(label: $0, level: .trace, sink: lines.sink) }
        logger.info("upgrade GET /ws?token=\(Self.jwt)&x=1", metadata: [
            "authorization": "Bearer \(Self.jwt)", "resumeToken": "66b2d9c7a27fdf23bb96736e80b8f84a",
            "SESSIONHUB_SECRET": "integration-test-secret", "note": "header was Bearer abc.def.ghi",
            "list": [.string(Self.jwt)], "user": "ana",
        ])
        logger.warning("raw \(Self.jwt) seen")
        let text = lines.all.joined(separator: "\n")
        #expect(!text.contains(Self.jwt))
        #expect(!text.contains("66b2d9c7"))
        #expect(!text.contains("integration-test-secret"))
        #expect(!text.contains("abc.def.ghi"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(lines.all[0].utf8)) as? [String: Any])
        #expect(object["message"] as? String == "upgrade GET /ws?token=[redacted]&x=1")
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata["authorization"] as? String == "[redacted]")
        #expect(metadata["resumeToken"] as? String == "[redacted]")
        #expect(metadata["user"] as? String == "ana")
        #expect(metadata["note"] as? String == "header was Bearer [redacted]")
        #expect(metadata["list"] as? [String] == ["[redacted]"])
        // Ordinary text is left alone.
        #expect(LogRedaction.scrub("closing connection: token_expired: token expired") == "closing connection: token_expired: token expired")
        #expect(LogRedaction.scrub("eyJ without dots") == "eyJ without dots")
    }

    @Test func theTextFormatIsRedactedToo() {
        final class Capture: LogHandler, @unchecked Sendable {
            var logLevel: Logger.Level = .trace
            var metadata: Logger.Metadata = [:]
            var events: [(String, Logger.Metadata?)] = []
            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }
            func log(event: LogEvent) { events.append((event.message.description, event.metadata)) }
        }
        let capture = Capture()
        let logger = Logger(label: "t") { _ in RedactingLogHandler(capture) }
        logger.info("Bearer \(Self.jwt)", metadata: ["token": "abc", "conn": "1"])
        #expect(capture.events.first?.0 == "Bearer [redacted]")
        #expect(capture.events.first?.1?["token"] == "[redacted]")
        #expect(capture.events.first?.1?["conn"] == "1")
    }

    /// The first line of defence: no log call in the sources passes anything that could hold a
    /// token or the secret (the check `grep` in docs/OPERATIONS.md does, as a test).
    @Test func noLogCallInTheSourcesMentionsATokenOrSecret() throws {
        let sources = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path))
            .compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(files.count > 50)
        var calls = 0
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for call in Self.logCalls(in: text) {
                calls += 1
                let lowered = call.lowercased()
                for word in ["token", "secret", "authorization", "password", "bearer", "head.uri", "request.target"]
                where lowered.contains(word) {
                    Issue.record("\(file): a log call mentions \(word): \(call.prefix(200))")
                }
            }
        }
        #expect(calls > 10)
    }

    /// Every `logger.<level>(…)` call in `text`, parentheses balanced.
    static func logCalls(in text: String) -> [String] {
        let levels = ["trace", "debug", "info", "notice", "warning", "error", "critical", "log"]
        var calls: [String] = []
        var search = text.startIndex
        while let found = text.range(of: "logger.", range: search..<text.endIndex) {
            search = found.upperBound
            let rest = text[found.upperBound...]
            guard let level = levels.first(where: { rest.hasPrefix($0 + "(") }) else { continue }
            var depth = 0
            var end = rest.index(rest.startIndex, offsetBy: level.count)
            while end < rest.endIndex {
                if rest[end] == "(" { depth += 1 }
                if rest[end] == ")" { depth -= 1; if depth == 0 { break } }
                end = rest.index(after: end)
            }
            calls.append(String(text[found.lowerBound..<min(end, rest.endIndex)]))
        }
        return calls
    }
}
