import Foundation
import Synchronization
import Testing
import WebSocket
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Graceful drain of the real `sessionhub` binary: SIGTERM in the middle of two multiplayer
/// sessions (a burst of lines in flight), then a restart on the same SQLite file.
@Suite("Graceful drain", .timeLimit(.minutes(3)))
struct DrainIntegrationTests {
    /// The secret the child runs with: the one ``HubTestServer`` signs test tokens with.
    static let secret = String(decoding: HubTestServer.secret, as: UTF8.self)
    static let admin = HubTestServer.token("ops", name: "Ops", admin: true)

    @Test func sigtermEndsEverySessionSavesItAndClosesWith1001() async throws {
        let binary = try BuiltExecutable("sessionhub")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hub-drain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let database = dir.appendingPathComponent("data/sessionhub.sqlite").path

        // 1. Start the hub, JSON logs on.
        let hub = try HubProcess.start(binary.url, directory: dir, database: database, name: "first")
        defer { hub.kill() }
        let port = try await hub.waitForPort()
        try await HubProcess.waitUntilReady(port)
        // Without `--journal`: the log journal (the default), and no SQLite journal beside it.
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("data/sessionhub-journal.log").path),
                "no log journal beside the database")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("data/sessionhub-journal.sqlite").path))

        // 2. Five premium players in two shared sessions.
        let users = ["ana", "ben", "cleo", "dan", "eve"]
        for user in users {
            let reply = try await HTTPTestClient.request("PUT", port: port, "/admin/users/\(user)/premium",
                                                         token: Self.admin, body: ["isPremium": true])
            #expect(reply.status == 200, "premium \(user)")
        }
        var players: [String: Player] = [:]
        for user in users {
            players[user] = try await Player.connect(port: port, user: user)
        }
        let first = try await Self.open(host: players["ana"]!, guests: [players["ben"]!], scenario: "town-hall-meeting")
        let second = try await Self.open(host: players["cleo"]!, guests: [players["dan"]!, players["eve"]!],
                                         scenario: "dinner-with-friends")
        let sessionOf = ["ana": first, "ben": first, "cleo": second, "dan": second, "eve": second]

        // 3. Play: two acknowledged lines each, and a recast.
        for round in 1...2 {
            for user in users {
                try await players[user]!.say("\(user.capitalized) dit la phrase numéro \(round).", id: "\(user)-\(round)")
            }
        }
        try await players["ben"]!.recast(lineId: "l1", corrected: "Ana dit la phrase numéro un.", id: "ben-r")
        let live = try await HTTPTestClient.request("GET", port: port, "/admin/api/sessions", token: Self.admin)
        #expect(live.json?["count"] as? Int == 2)

        // 4. A burst of lines in flight, then SIGTERM.
        for user in users {
            for index in 1...4 {
                players[user]!.sendSay("\(user.capitalized), ligne rapide \(index).", id: "\(user)-burst-\(index)")
            }
        }
        hub.signal(SIGTERM)

        // 5. Every client: ended{serverShutdown}, then the close frame 1001.
        for user in users {
            let player = players[user]!
            try await player.readUntilClosed()
            let ended = try #require(player.ended, "\(user) got no ended")
            #expect(ended.string("cause") == "serverShutdown", "\(user)")
            #expect(ended.string("sessionId") == sessionOf[user])
            let results = ended.objects("participants").map { $0.object("history")?.string("status") }
            #expect(!results.isEmpty && results.allSatisfy { $0 == "Success" }, "\(user): \(results)")
            let close = try #require(player.close, "\(user) got no close frame")
            #expect(close.code == .goingAway, "\(user) closed with \(String(describing: close.code))")
            #expect(close.reason == "server shutting down")
            #expect(player.endedIndex! < player.closeIndex!, "\(user): ended before the close")
            #expect(player.lines.count >= 4, "\(user) saw the lines before the burst")
        }

        // 6. The process exits 0 within the deadline, with a JSON log and no credential in it.
        let exit = try #require(await hub.waitForExit(seconds: 20), "the hub did not exit within 20 s of SIGTERM")
        #expect(exit.status == 0 && exit.normal, "exit \(exit); stderr:\n\(hub.stderr.suffix(3000))")
        Self.checkLog(hub.stderr, tokens: users.map { HubTestServer.token($0) } + [Self.admin], mustHave: ["shutting down", "stopped"])

        // Every member of a session saw the same transcript; each speaker's acknowledged lines are in it.
        var transcripts: [String: [Line]] = [:]
        for user in users {
            let seen = players[user]!.lines
            if let other = transcripts[sessionOf[user]!] {
                #expect(seen == other, "\(user) saw the same lines as the rest of the session")
            }
            transcripts[sessionOf[user]!] = seen
            let acknowledged = players[user]!.acknowledged
            #expect(acknowledged.count >= 2)
            for line in acknowledged { #expect(seen.contains(line), "\(user)'s acknowledged line \(line.text)") }
        }

        // 7. Restart on the same file: nothing to rebuild, every premium player's history holds
        //    the session with every line acknowledged before the shutdown.
        let again = try HubProcess.start(binary.url, directory: dir, database: database, name: "second")
        defer { again.kill() }
        let port2 = try await again.waitForPort()
        try await HubProcess.waitUntilReady(port2)
        let rebuilt = try await HTTPTestClient.request("GET", port: port2, "/admin/api/sessions", token: Self.admin)
        #expect(rebuilt.json?["count"] as? Int == 0, "ended sessions are not rebuilt")
        for user in users {
            let token = HubTestServer.token(user)
            let sessionId = sessionOf[user]!
            let list = try await HTTPTestClient.request("GET", port: port2, "/api/history", token: token)
            #expect(list.status == 200)
            #expect(list.json?["total"] as? Int == 1, "\(user)")
            #expect((list.json?["sessions"] as? [[String: Any]])?.first?["sessionId"] as? String == sessionId)
            let entry = try await HTTPTestClient.request("GET", port: port2, "/api/history/\(sessionId)", token: token)
            #expect(entry.status == 200)
            let stored = (entry.json?["dialogLines"] as? [[String: Any]] ?? []).map {
                Line(speaker: $0["speakerId"] as? String ?? "", text: $0["textNative"] as? String ?? "")
            }
            #expect(stored == transcripts[sessionId], "\(user): history holds exactly the transcript everyone saw")
            for line in players[user]!.acknowledged {
                #expect(stored.contains(line), "\(user)'s acknowledged line is in history: \(line.text)")
            }
            #expect((entry.json?["recasts"] as? [[String: Any]])?.count == (sessionId == first ? 1 : 0))
        }
        again.signal(SIGTERM)
        let exit2 = try #require(await again.waitForExit(seconds: 20))
        #expect(exit2.status == 0 && exit2.normal, "second run: exit \(exit2)")
        Self.checkLog(again.stderr, tokens: users.map { HubTestServer.token($0) } + [Self.admin], mustHave: ["hub ready"])
    }

    // MARK: Helpers

    /// One line of a transcript.
    struct Line: Equatable, CustomStringConvertible {
        var speaker: String
        var text: String
        var description: String { "\(speaker): \(text)" }
    }

    /// `host` hosts, `guests` join; returns the session id.
    private static func open(host: Player, guests: [Player], scenario: String) async throws -> String {
        host.client.send(["type": "host", "id": "h", "scenarioId": scenario])
        let joined = try #require(await host.read(until: { $0.type == "joined" }))
        let session = try #require(joined.object("session"))
        let code = try #require(session.string("joinCode"))
        for guest in guests {
            guest.client.send(["type": "join", "id": "j", "code": code])
            _ = try #require(await guest.read(until: { $0.type == "joined" }))
        }
        return try #require(session.string("sessionId"))
    }

    /// Every non-empty line of `log` is a JSON object with the documented keys; no token appears.
    private static func checkLog(_ log: String, tokens: [String], mustHave: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = log.split(separator: "\n").filter { !$0.isEmpty }
        #expect(!lines.isEmpty, sourceLocation: sourceLocation)
        var messages: [String] = []
        for line in lines {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                Issue.record("not a JSON line: \(line.prefix(300))", sourceLocation: sourceLocation)
                continue
            }
            for key in ["timestamp", "level", "label", "message", "metadata"] where object[key] == nil {
                Issue.record("log line without \(key): \(line.prefix(300))", sourceLocation: sourceLocation)
            }
            #expect(object["metadata"] is [String: Any], sourceLocation: sourceLocation)
            messages.append(object["message"] as? String ?? "")
        }
        for token in tokens {
            #expect(!log.contains(token), "a token was logged", sourceLocation: sourceLocation)
            #expect(!log.contains(String(token.split(separator: ".").last ?? "")), "a token signature was logged",
                    sourceLocation: sourceLocation)
        }
        #expect(!log.contains(secret), "the secret was logged", sourceLocation: sourceLocation)
        for message in mustHave {
            #expect(messages.contains(message), "no \"\(message)\" line in the log", sourceLocation: sourceLocation)
        }
    }
}

/// A player's connection and everything it received, in order.
private final class Player {
    let user: String
    let client: HubTestClient
    private(set) var received: [JSONObject] = []
    private(set) var close: (code: WebSocketCloseCode?, reason: String)?
    private(set) var closeIndex: Int?

    init(user: String, client: HubTestClient) {
        self.user = user
        self.client = client
    }

    static func connect(port: Int, user: String) async throws -> Player {
        let player = Player(user: user, client: try await HubTestClient.connect(port: port, token: HubTestServer.token(user)))
        _ = try #require(await player.read(until: { $0.type == "welcome" }))
        return player
    }

    /// Reads (recording everything) until a message matches; nil on timeout or close.
    func read(until match: (JSONObject) -> Bool, seconds: Double = 10) async -> JSONObject? {
        while close == nil, let item = await client.next(seconds: seconds) {
            switch item {
            case .text(let text):
                guard let object = JSONObject(text) else { continue }
                received.append(object)
                if match(object) { return object }
            case .closed(let code, let reason):
                close = (code, reason)
                closeIndex = received.count
            }
        }
        return nil
    }

    /// Reads everything until the server closes the connection.
    func readUntilClosed() async throws {
        _ = await read(until: { _ in false }, seconds: 15)
        #expect(close != nil, "\(user): the connection was not closed")
    }

    func sendSay(_ text: String, id: String) {
        client.send(["type": "say", "id": id, "textNative": text, "textTranslated": ""])
    }

    /// Says a line and waits for its acknowledgement (the broadcast carrying our ref).
    func say(_ text: String, id: String) async throws {
        sendSay(text, id: id)
        let ack = await read(until: { $0.type == "line" && $0.string("ref") == id && $0.object("line")?.string("speakerId") == self.user })
        _ = try #require(ack, "\(user): no acknowledgement of \(id)")
    }

    func recast(lineId: String, corrected: String, id: String) async throws {
        client.send(["type": "recast", "id": id, "lineId": lineId, "correctedText": corrected, "issueTypes": ["grammar"]])
        _ = try #require(await read(until: { $0.type == "recast" && $0.string("ref") == id }))
    }

    /// Every `line` broadcast received, in order.
    var lines: [DrainIntegrationTests.Line] {
        received.filter { $0.type == "line" }.compactMap { $0.object("line") }.map {
            DrainIntegrationTests.Line(speaker: $0.string("speakerId") ?? "", text: $0.string("textNative") ?? "")
        }
    }

    /// The lines this player said that the hub acknowledged (their broadcast reached us).
    var acknowledged: [DrainIntegrationTests.Line] {
        received.filter { $0.type == "line" && $0.object("line")?.string("speakerId") == user && $0.string("ref") != nil }
            .compactMap { $0.object("line") }
            .map { DrainIntegrationTests.Line(speaker: user, text: $0.string("textNative") ?? "") }
    }

    var ended: JSONObject? { received.first { $0.type == "ended" } }
    var endedIndex: Int? { received.firstIndex { $0.type == "ended" } }
}
