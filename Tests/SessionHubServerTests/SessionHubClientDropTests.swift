import HubDomain
import HubProtocol
import SessionHubClient
import SessionHubServer
import Testing

/// ``SessionHubClient/dropConnection(until:)`` against a real hub: the client comes back by
/// itself, resumes, and its model goes on with exactly the broadcasts it missed.
@Suite("SessionHubClient.dropConnection against a real hub")
struct SessionHubClientDropTests {
    typealias Support = SessionHubClientIntegrationTests

    @Test("dropConnection(until:): the others speak meanwhile; the client resumes with a replay of exactly what it missed")
    func dropResumesWithReplay() async throws {
        try await HubTestServer.with { port in
            let ana = try Support.client(port, "ana")
            let ben = try SessionHubClient(url: "ws://127.0.0.1:\(port)/ws", reconnect: Support.quickReconnect) {
                HubTestServer.token("ben")
            }
            try await ana.connect()
            try await ben.connect()
            let scenario = try #require(try await ana.scenarios().first { $0.maxPlayers >= 2 })
            let code = try #require(try await ana.host(scenarioId: scenario.id).joinCode)
            _ = try await ben.join(code: code)
            _ = try await ana.say("Primera", translation: "First")
            let before = try await Support.settle(ben, at: try #require(await ana.session).seq)

            // Ben's events from here on: what the bot reads to check a resume.
            let watched = Task {
                var seen: [ServerMessage] = []
                for await message in ben.events {
                    seen.append(message)
                    if case .line(let m) = message, m.line.textNative == "Ya estoy" { break }
                }
                return seen
            }
            // The network stays away until Ana has spoken.
            let (networkBack, bringBack) = AsyncStream.makeStream(of: Void.self)
            await ben.dropConnection { for await _ in networkBack { return } }
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline {
                if case .reconnecting = await ben.state { break }
                try await Task.sleep(for: .milliseconds(5))
            }
            guard case .reconnecting = await ben.state else {
                Issue.record("after dropConnection: \(await ben.state)")
                return
            }
            // What Ben had seen when the connection went (a stats tick may have come after `before`).
            let dropped = try #require(await ben.session).seq
            _ = try await ana.say("Mientras tanto", translation: "Meanwhile")
            bringBack.finish()
            let anaSeq = try #require(await ana.session).seq
            let back = try await Support.back(ben, at: anaSeq)
            #expect(back.lines.map(\.textNative) == ["Primera", "Mientras tanto"])
            _ = try await ben.say("Ya estoy", translation: "I'm back")

            let seen = await watched.value
            let resumed = seen.compactMap { message -> ServerMessage.Resumed? in
                if case .resumed(let m) = message { return m }
                return nil
            }
            let resume = try #require(resumed.first)
            #expect(resumed.count == 1)
            #expect(resume.mode == .replay)
            #expect(resume.replayed >= 2, "the disconnect and Ana's line were missed")
            let replayIndex = try #require(seen.firstIndex { if case .resumed = $0 { true } else { false } })
            let replay = seen[(replayIndex + 1)...].prefix(resume.replayed).compactMap(\.seq)
            #expect(dropped >= before.seq)
            #expect(replay == Array(dropped + 1 ... dropped + resume.replayed), "exactly the missed broadcasts, in order")
            let final = try #require(await ben.session)
            let both = try await Support.settleTogether([ben, ana], at: final.seq)
            #expect(Support.shared(both[0]) == Support.shared(both[1]))
            await ana.close()
            await ben.close()
        }
    }

    @Test("dropConnection() without a reconnect policy leaves the client closed; in the lobby it is a plain drop")
    func dropWithoutPolicy() async throws {
        try await HubTestServer.with { port in
            let cleo = try SessionHubClient(url: "ws://127.0.0.1:\(port)/ws", reconnect: nil) { HubTestServer.token("cleo") }
            try await cleo.connect()
            await cleo.dropConnection()
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline {
                if case .closed = await cleo.state { break }
                try await Task.sleep(for: .milliseconds(5))
            }
            guard case .closed = await cleo.state else {
                Issue.record("after dropConnection without a policy: \(await cleo.state)")
                return
            }
        }
    }
}
