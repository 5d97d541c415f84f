import Foundation
import HubDomain
import HubProtocol
import SessionHubClient
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The client library across a crash of the real `sessionhub` binary: SIGKILL in the middle of a
/// three-player session with lines in flight, lines said while the hub is down, a restart on the
/// same SQLite file, and connections cut at random moments while the clients resume.
@Suite("SessionHubClient across a hub crash", .timeLimit(.minutes(3)))
struct SessionHubClientCrashTests {
    static let players = ["ana", "ben", "cleo"]

    /// Waits until every client is back in its seat and its model has applied `seq`.
    /// Every client connected, in the session and at `seq` or later, all at the same `seq`: a
    /// broadcast that lands between two clients' snapshots (a `stats` tick after the last lines)
    /// would otherwise make equal models differ by one `seq`, so the snapshots are taken again,
    /// at the newest `seq` seen, until they agree (within `seconds`).
    static func allBack(_ clients: [SessionHubClient], at seq: Int, seconds: Int = 20) async throws -> [SessionModel] {
        let deadline = ContinuousClock.now + .seconds(seconds)
        var target = seq
        while true {
            var models: [SessionModel] = []
            for client in clients {
                while true {
                    if case .connected = await client.state, await client.isInSession, let model = await client.session,
                       model.seq >= target {
                        models.append(model)
                        break
                    }
                    guard ContinuousClock.now < deadline else {
                        throw SessionHubClientError.timedOut(request: "back at seq \(target), state \(await client.state)")
                    }
                    try await Task.sleep(for: .milliseconds(10))
                }
            }
            let newest = models.map(\.seq).max() ?? target
            if models.allSatisfy({ $0.seq == newest }) { return models }
            guard ContinuousClock.now < deadline else { return models }
            target = newest
        }
    }

    static func newestSeq(_ clients: [SessionHubClient]) async -> Int {
        var newest = 0
        for client in clients { newest = max(newest, await client.session?.seq ?? 0) }
        return newest
    }

    @Test("SIGKILL mid-session and a restart on the same database: every line said appears once, in order, and every model ends identical")
    func killAndRestart() async throws {
        let binary = try BuiltExecutable("sessionhub")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hub-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let database = dir.appendingPathComponent("data/sessionhub.sqlite").path

        let first = try HubProcess.start(binary.url, directory: dir, database: database, name: "first")
        defer { first.kill() }
        let firstPort = try await first.waitForPort()
        try await HubProcess.waitUntilReady(firstPort)

        // The players reach the hub through a front that can cut connections and, after the
        // crash, points at the restarted hub (a load balancer's part).
        let front = try await TCPProxy(to: firstPort)
        let quick = ReconnectPolicy(initialDelay: .milliseconds(50), maxDelay: .milliseconds(250))
        let clients = try Self.players.map { user in
            try SessionHubClient(url: "ws://127.0.0.1:\(front.port)/ws", requestTimeout: .seconds(30), reconnect: quick) {
                HubTestServer.token(user)
            }
        }
        let (ana, ben, cleo) = (clients[0], clients[1], clients[2])
        for client in clients { try await client.connect() }
        let scenario = try #require(try await ana.scenarios().filter { $0.maxPlayers >= 3 }.max { $0.goal.lines < $1.goal.lines })
        let code = try #require(try await ana.host(scenarioId: scenario.id).joinCode)
        _ = try await ben.join(code: code)
        _ = try await cleo.join(code: code)

        var said: [String: [String]] = [:]
        // 1. Each says a line, acknowledged before the crash.
        for (index, client) in clients.enumerated() {
            let text = "Antes \(index)"
            _ = try await client.say(text)
            said[Self.players[index], default: []].append(text)
        }

        // 2. Each starts two lines; the hub is killed a random moment later (a line may be
        //    journaled and unacknowledged, on the wire, or not sent yet).
        let inFlight = clients.enumerated().map { index, client in
            Task { () throws -> [DialogLine] in
                var lines: [DialogLine] = []
                for round in 1...2 { lines.append(try await client.say("En vuelo \(index).\(round)")) }
                return lines
            }
        }
        for index in clients.indices { said[Self.players[index], default: []] += ["En vuelo \(index).1", "En vuelo \(index).2"] }
        try await Task.sleep(for: .microseconds(Int.random(in: 0...4000)))
        first.signal(SIGKILL)
        #expect(await first.waitForExit(seconds: 10) != nil, "the hub died")

        // 3. A line each while the hub is down.
        let offline = clients.enumerated().map { index, client in
            Task { try await client.say("Sin hub \(index)") }
        }
        for index in clients.indices { said[Self.players[index], default: []].append("Sin hub \(index)") }
        try await Task.sleep(for: .milliseconds(300))

        // 4. The hub starts again on the same database; the front points at it, and cuts every
        //    connection three times at random moments while the clients come back and resume.
        let second = try HubProcess.start(binary.url, directory: dir, database: database, name: "second")
        defer { second.kill() }
        let secondPort = try await second.waitForPort()
        try await HubProcess.waitUntilReady(secondPort)
        front.retarget(to: secondPort)
        for _ in 1...3 {
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...150)))
            front.sever()
        }

        let flown = try await inFlight.asyncMap { try await $0.value }
        let away = try await offline.asyncMap { try await $0.value }
        for (index, lines) in flown.enumerated() {
            #expect(lines.map(\.textNative) == ["En vuelo \(index).1", "En vuelo \(index).2"])
            #expect(lines.allSatisfy { $0.speakerId == Self.players[index] })
        }
        #expect(away.map(\.textNative) == clients.indices.map { "Sin hub \($0)" })

        // 5. Play goes on after the restart.
        for (index, client) in clients.enumerated() {
            let text = "Después \(index)"
            _ = try await client.say(text)
            said[Self.players[index], default: []].append(text)
        }
        let models = try await Self.allBack(clients, at: await Self.newestSeq(clients))
        let transcript = models[0].lines
        #expect(transcript.count == 15, "3 before, 6 in flight, 3 while down, 3 after: \(transcript.map(\.textNative))")
        for (index, user) in Self.players.enumerated() {
            // A player's lines are in the order said; the line said while the hub was down was
            // said while the in-flight ones were still waiting, so it may come between them.
            let theirs = transcript.filter { $0.speakerId == user }.map(\.textNative)
            #expect(theirs.sorted() == (said[user] ?? []).sorted(), "\(user): every line once")
            #expect(theirs.first == "Antes \(index)" && theirs.last == "Después \(index)")
            #expect(theirs.firstIndex(of: "En vuelo \(index).1") ?? 9 < theirs.firstIndex(of: "En vuelo \(index).2") ?? -1)
        }
        for (index, model) in models.enumerated().dropFirst() {
            #expect(SessionHubClientIntegrationTests.shared(model) == SessionHubClientIntegrationTests.shared(models[0]),
                    "\(Self.players[index])'s model is ana's")
        }

        // 6. The session ends on the restarted hub; every model, final figures included, is the same.
        let ended = try await ana.end()
        #expect(Set(ended.participants.map(\.userId)) == Set(Self.players))
        let final = try #require(await ana.session)
        for client in [ben, cleo] {
            #expect(try await SessionHubClientIntegrationTests.settle(client, at: final.seq) == final)
        }
        for client in clients { await client.close() }
        await front.stop()
    }
}

extension Array where Element: Sendable {
    /// `transform` applied to each element in order, awaiting each.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        results.reserveCapacity(count)
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
