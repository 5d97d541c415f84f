import Foundation
import HubDomain
import SessionHubServer
import Testing
import WebSocket
import WebSocketTransport

/// The hub's per-endpoint and per-connection limits on the real server: `/ws` messages refused
/// from the frame header at the hub's own limit, connections per user, unauthenticated
/// connections per address, and the JSON API's body limit.
@Suite("Connection limits", .timeLimit(.minutes(1)))
struct ConnectionLimitsIntegrationTests {
    static func withServer(_ adjust: (inout HubServerConfiguration) -> Void = { _ in },
                           _ body: (Int, HubServer) async throws -> Void) async throws {
        try await HubTestServer.with(persistence: .inMemory(), adjust: { configuration in
            configuration.enableEcho = true
            adjust(&configuration)
        }, body)
    }

    /// The close code the client saw next (messages before it are skipped), or nil.
    static func closeCode(_ client: HubTestClient) async -> (WebSocketCloseCode?, String)? {
        while let item = await client.next() {
            if case .closed(let code, let reason) = item { return (code, reason) }
        }
        return nil
    }

    @Test func wsMessagesOverTheHubsLimitAreRefusedWith1009() async throws {
        try await Self.withServer { port, _ in
            let limit = HubConnectionLimits().maxMessageBytes
            let client = try await HubTestClient.connect(port: port, token: HubTestServer.token("max"))
            _ = try #require(await client.expect("welcome"))
            // Exactly the limit: an ordinary message (extra fields are ignored).
            let envelope = #"{"type":"ping","id":"p","pad":""}"#
            client.send(raw: #"{"type":"ping","id":"p","pad":""# + String(repeating: "x", count: limit - envelope.utf8.count) + #""}"#)
            #expect(await client.expect("pong")?.string("ref") == "p")
            // One byte more: close 1009 from the frame header, no `error` reply.
            client.send(raw: #"{"type":"ping","id":"q","pad":""# + String(repeating: "x", count: limit + 1 - envelope.utf8.count) + #""}"#)
            let close = try #require(await Self.closeCode(client))
            #expect(close.0 == .messageTooBig)
        }
    }

    @Test func echoKeepsTheServerWideLimit() async throws {
        try await Self.withServer { port, _ in
            let client = try await EchoServerIntegrationTests.connect(port)
            var events = client.events.makeAsyncIterator()
            let text = String(repeating: "e", count: 100_000)
            client.send(text: text)
            #expect(await events.next() == .message(.text(text)))
            client.close()
        }
    }

    @Test func aUserBeyondTheirConnectionLimitIsRefusedWithACodeAnd1008() async throws {
        try await Self.withServer({ $0.connectionLimits.maxConnectionsPerUser = 2 }) { port, server in
            var held: [HubTestClient] = []
            for _ in 0..<2 {
                let client = try await HubTestClient.connect(port: port, token: HubTestServer.token("kim"))
                _ = try #require(await client.expect("welcome"))
                held.append(client)
            }
            // The third, token on the upgrade: error then 1008. Another user is not affected.
            let third = try await HubTestClient.connect(port: port, token: HubTestServer.token("kim"))
            #expect(await third.expect("error")?.string("code") == "too_many_connections")
            let close = try #require(await Self.closeCode(third))
            #expect(close.0 == .policyViolation)
            #expect(close.1.hasPrefix("too_many_connections"))
            let other = try await HubTestClient.connect(port: port, token: HubTestServer.token("lee"))
            #expect(await other.expect("welcome") != nil)
            // With the `auth` message the same.
            let fourth = try await HubTestClient.connect(port: port, token: nil)
            fourth.send(["type": "auth", "id": "a", "token": HubTestServer.token("kim")])
            let refused = try #require(await fourth.expect("error"))
            #expect(refused.string("code") == "too_many_connections" && refused.string("ref") == "a")
            // One leaves: the next is admitted. The place is free once the server has seen the close: until then a retry is refused
            // (and counted). A retry that gets no answer is dropped, so it cannot hold the place.
            held[0].drop()
            var admitted = false, refusedAgain = 0
            let deadline = ContinuousClock.now + .seconds(30)
            while !admitted, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
                let again = try await HubTestClient.connect(port: port, token: HubTestServer.token("kim"))
                let answer = await again.nextMessage(seconds: 10)
                switch (answer?.type, answer?.string("code")) {
                case ("welcome", _): admitted = true
                case ("error", "too_many_connections"): refusedAgain += 1; again.drop()
                default: again.drop()
                }
            }
            #expect(admitted)
            let metrics = await server.metricsText()
            #expect(metrics.contains(#"sessionhub_connections_refused_total{reason="per_user"} \#(2 + refusedAgain)"#))
        }
    }

    @Test func unauthenticatedConnectionsPerAddressAreCappedUntilOneAuthenticates() async throws {
        try await Self.withServer({ $0.connectionPolicy.maxUnauthenticatedConnectionsPerAddress = 2 }) { port, server in
            let first = try await HubTestClient.connect(port: port, token: nil)
            let second = try await HubTestClient.connect(port: port, token: nil)
            // A third is closed on accept: the upgrade fails, or the connection ends at once.
            if let third = try? await HubTestClient.connect(port: port, token: nil) {
                #expect(await third.next(seconds: 2) != nil)  // closed, not left hanging
            }
            #expect(await server.metricsText().contains(#"sessionhub_connections_refused_total{reason="unauthenticated_per_address"} 1"#))
            first.send(["type": "auth", "token": HubTestServer.token("pat")])
            _ = try #require(await first.expect("welcome"))
            let fourth = try await HubTestClient.connect(port: port, token: nil)
            fourth.send(["type": "auth", "token": HubTestServer.token("sam")])
            #expect(await fourth.expect("welcome") != nil)
            second.drop()
        }
    }

    @Test func theJSONAPIRefusesBodiesOverItsLimitOtherRoutesKeepTheServers() async throws {
        try await Self.withServer { port, _ in
            let limit = HubServerConfiguration(secret: []).maxAPIBodySize
            let big = ["pad": String(repeating: "x", count: limit)]
            let api = try await HTTPTestClient.request("PUT", port: port, "/api/profile", token: HubTestServer.token("ivy"), body: big)
            #expect(api.status == 413)
            let admin = try await HTTPTestClient.request("POST", port: port, "/admin/api/sessions", body: big)
            #expect(admin.status == 413)
            // Elsewhere the same body reaches the route (which has no use for it).
            let health = try await HTTPTestClient.request("POST", port: port, "/healthz", body: big)
            #expect(health.status == 405)
        }
    }
}
