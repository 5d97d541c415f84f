import Foundation
import HubDomain
@testable import SessionHubServer
import Testing
import WebSocket

/// Join-code guessing across reconnections, and tokens that expire under an open connection, on
/// the real server over real sockets.
@Suite("Abuse limits over WebSocket", .timeLimit(.minutes(2)))
struct AbuseLimitIntegrationTests {
    private func player(_ port: Int, _ user: String, ttl: Int = 3600) async throws -> HubTestClient {
        let client = try await HubTestClient.connect(port: port, token: HubTestServer.token(user, ttl: ttl))
        _ = try #require(await client.expect("welcome"))
        return client
    }

    /// One wrong guess per connection, a new connection each time (which used to reset the
    /// per-connection join limit): the user's 11th join is refused, the right code included.
    @Test func reconnectingBetweenWrongGuessesStillLocksTheUserOut() async throws {
        try await HubTestServer.with { port in
            let host = try await player(port, "ana")
            host.send(["type": "host", "id": "h", "scenarioId": "hotel-check-in"])
            let code = try #require(await host.expect("joined")?.object("session")?.string("joinCode"))
            let wrong = code == "AAAAAA" ? "BBBBBB" : "AAAAAA"
            for attempt in 1...HubConfiguration().maxJoinFailuresPerUser {
                let guesser = try await player(port, "mallory")
                guesser.send(["type": "join", "id": "\(attempt)", "code": wrong])
                let answer = try #require(await guesser.expect("error"))
                #expect(answer.string("code") == "unknown_join_code", "attempt \(attempt)")
                guesser.drop()
            }
            let guesser = try await player(port, "mallory")
            guesser.send(["type": "join", "id": "right", "code": code])
            let locked = try #require(await guesser.expect("error"))
            #expect(locked.string("code") == "join_locked")
            #expect(locked.string("ref") == "right")
            let retryAfter = try #require(locked.int("retryAfter"))
            #expect((800...900).contains(retryAfter), "\(retryAfter) s")
            // Another user is not locked (10 failures from this address is under its 30).
            let ben = try await player(port, "ben")
            ben.send(["type": "join", "id": "j", "code": code])
            #expect(await ben.expect("joined") != nil)

            let metrics = String(decoding: try await HTTPTestClient.request("GET", port: port, "/metrics").body, as: UTF8.self)
            #expect(metrics.contains("sessionhub_join_failures_total 10"), "\(metrics)")
            #expect(metrics.contains("sessionhub_join_lockouts_total 1"))
        }
    }

    /// Many users from one address, each one guess on its own connection: the address is locked
    /// out, for every user behind it.
    @Test func manyUsersFromOneAddressLockTheAddressOut() async throws {
        var hub = HubConfiguration()
        hub.maxJoinFailuresPerAddress = 4
        try await HubTestServer.with(hub: hub) { port in
            let host = try await player(port, "ana")
            host.send(["type": "host", "id": "h", "scenarioId": "hotel-check-in"])
            let code = try #require(await host.expect("joined")?.object("session")?.string("joinCode"))
            for index in 1...4 {
                let guesser = try await player(port, "bot-\(index)")
                guesser.send(["type": "join", "id": "g", "code": code == "AAAAAA" ? "BBBBBB" : "AAAAAA"])
                #expect(await guesser.expect("error")?.string("code") == "unknown_join_code")
                guesser.drop()
            }
            let newcomer = try await player(port, "bot-5")
            newcomer.send(["type": "join", "id": "g", "code": code])
            #expect(await newcomer.expect("error")?.string("code") == "join_locked")
        }
    }

    @Test func aConnectionIsClosedWhenItsTokenExpires() async throws {
        try await HubTestServer.with { port in
            // A token with enough life left for a loaded machine to connect and answer `welcome`
            // (connect + welcome took over 3 s on CI); the close is checked against its `exp`.
            let ttl = 8
            let expiresAtMs = (SystemHubClock().now() / 1000 + Int64(ttl)) * 1000
            let shortLived = try await player(port, "sam", ttl: ttl)
            let closed = try #require(await shortLived.next(seconds: Double(ttl) + 20))
            let closedAtMs = SystemHubClock().now()
            guard case .closed(let code, let reason) = closed else {
                Issue.record("expected a close, got \(closed)")
                return
            }
            #expect(code == .policyViolation)
            #expect(reason == "token_expired: token expired")
            // The token is minted a moment after `expiresAtMs` was computed, so its exp is the
            // same second or the next one.
            #expect(closedAtMs >= expiresAtMs, "closed at the expiry, not before")
        }
    }

    /// The shared expiry wheel holds each authenticated connection once, a renewal moves it, and
    /// a closed connection leaves it (nothing kept alive until its token's `exp`).
    @Test func closedConnectionsLeaveTheExpiryWheel() async throws {
        let persistence = HubPersistence(journal: InMemorySessionJournal(), history: InMemoryHistoryWriter(),
                                         learners: InMemoryLearnerRecords())
        try await HubTestServer.with(persistence: persistence) { port, server in
            var clients: [HubTestClient] = []
            for index in 0..<5 { clients.append(try await player(port, "user-\(index)")) }
            #expect(server.expiries.count == 5)
            clients[0].send(["type": "auth", "id": "renew", "token": HubTestServer.token("user-0", ttl: 7200)])
            _ = try #require(await clients[0].expect("welcome"))
            #expect(server.expiries.count == 5, "a renewal moves the connection, it does not add one")
            for client in clients { client.drop() }
            let deadline = ContinuousClock.now + .seconds(5)
            while server.expiries.count > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(server.expiries.count == 0)
        }
    }

    @Test func aRenewingAuthKeepsTheConnectionPastTheFirstExpiry() async throws {
        try await HubTestServer.with { port in
            // The first token lives long enough for the renewal to arrive on a loaded CI machine
            // (with 4 s, a busy test run once saw the connection expire before the renewal).
            let firstExpiry = ContinuousClock.now + .seconds(10)
            let client = try await player(port, "sam", ttl: 10)
            client.send(["type": "auth", "id": "renew", "token": HubTestServer.token("sam", ttl: 3600)])
            let welcome = try #require(await client.expect("welcome"))
            #expect(welcome.string("userId") == "sam")
            #expect(welcome.string("ref") == "renew")
            // Another user's token, or a bad one, does not renew (and does not close).
            client.send(["type": "auth", "id": "other", "token": HubTestServer.token("eve")])
            let refused = try #require(await client.expect("error"))
            #expect(refused.string("code") == "not_allowed")
            #expect(refused.string("ref") == "other")
            client.send(["type": "auth", "id": "bad", "token": "x.y.z"])
            #expect(await client.expect("error")?.string("message")?.contains("token_malformed") == true)
            // Past the first token's expiry the connection still answers.
            try await Task.sleep(until: firstExpiry + .milliseconds(1500), clock: .continuous)
            client.send(["type": "ping", "id": "p"])
            let pong = try #require(await client.nextMessage())
            #expect(pong.type == "pong", "\(pong.text)")
        }
    }

    @Test func tokensBreakingTheNewRulesAreRefusedOnTheUpgrade() async throws {
        try await HubTestServer.with { port in
            let now = Int(Date().timeIntervalSince1970)
            let authority = TokenAuthority(secret: HubTestServer.secret)
            let cases: [(TokenClaims, String)] = [
                (TokenClaims(sub: "ana", name: "Ana", iat: now + 3600, exp: now + 7200), "token_not_yet_valid"),
                (TokenClaims(sub: "ana", name: "Ana", iat: now, exp: Int.max), "token_lifetime"),
                (TokenClaims(sub: "ana", name: "Ana\nINFO forged", iat: now, exp: now + 60), "token_control_characters"),
            ]
            for (claims, code) in cases {
                let client = try await HubTestClient.connect(port: port, token: authority.mint(claims))
                let closed = await client.next()
                guard case .closed(let closeCode, let reason) = closed else {
                    Issue.record("\(code): expected a close, got \(String(describing: closed))")
                    continue
                }
                #expect(closeCode == .policyViolation)
                #expect(reason.hasPrefix(code + ":"), "\(reason)")
            }
        }
    }
}
