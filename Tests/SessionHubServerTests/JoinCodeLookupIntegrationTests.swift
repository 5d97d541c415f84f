import Foundation
import HubDomain
import SessionHubServer
import Testing

/// `GET /api/join-codes/{code}` on real hubs: where a join code's session lives, counted like a
/// join against the guessing budgets.
@Suite("Join code lookup over HTTP", .timeLimit(.minutes(2)))
struct JoinCodeLookupIntegrationTests {
    @Test func aSingleNodeNamesItselfAndRefusesUnknownCodesAndMissingTokens() async throws {
        try await HubTestServer.with { port in
            let ana = try await HubTestClient.connect(port: port, token: HubTestServer.token("ana"))
            _ = await ana.expect("welcome")
            ana.send(["type": "host", "id": "h", "scenarioId": "ordering-coffee"])
            let session = try #require(await ana.expect("joined")?.object("session"))
            let code = try #require(session.string("joinCode"))

            let found = try await HTTPTestClient.request("GET", port: port, "/api/join-codes/\(code.lowercased())",
                                                         token: HubTestServer.token("ben"))
            #expect(found.status == 200)
            #expect(found.json?["sessionId"] as? String == session.string("sessionId"))
            #expect(found.json?["node"] as? String == "local")
            #expect(found.json?["url"] is NSNull, "a single node: the server asked is the one to use")

            let unknown = try await HTTPTestClient.request("GET", port: port, "/api/join-codes/ZZZZZZ", token: HubTestServer.token("ben"))
            #expect(unknown.status == 404)
            #expect(unknown.json?["code"] as? String == "unknown_join_code")
            let anonymous = try await HTTPTestClient.request("GET", port: port, "/api/join-codes/\(code)")
            #expect(anonymous.status == 401)
            let post = try await HTTPTestClient.request("POST", port: port, "/api/join-codes/\(code)", token: HubTestServer.token("ben"))
            #expect(post.status == 405)
        }
    }

    @Test func wrongCodesSpendTheJoinBudgetAndLockLookupsAndJoinsAlike() async throws {
        try await HubTestServer.with { port in
            let ana = try await HubTestClient.connect(port: port, token: HubTestServer.token("ana"))
            _ = await ana.expect("welcome")
            ana.send(["type": "host", "id": "h", "scenarioId": "ordering-coffee"])
            let code = try #require(await ana.expect("joined")?.object("session")?.string("joinCode"))
            let token = HubTestServer.token("guesser")
            var statuses: [Int] = []
            for attempt in 0..<10 {
                statuses.append(try await HTTPTestClient.request("GET", port: port, "/api/join-codes/QQQQ\(attempt)", token: token).status)
        }
        #expect(statuses == Array(repeating: 404, count: 10))
        let locked = try await HTTPTestClient.request("GET", port: port, "/api/join-codes/\(code)", token: token)
        #expect(locked.status == 429, "locked even for the right code")
        #expect(locked.json?["code"] as? String == "join_locked")
        #expect(Int(locked.headers["retry-after"] ?? "") ?? 0 > 0)
        // The same budget: a join over WebSocket is locked too.
        let guesser = try await HubTestClient.connect(port: port, token: token)
        _ = await guesser.expect("welcome")
        guesser.send(["type": "join", "id": "j", "code": code])
        #expect(await guesser.expect("error")?.string("code") == "join_locked")
        }
    }

    @Test func aClusterNodeNamesTheOwnersPublicURL() async throws {
        try await ClusterIntegrationTests.withTwoNodes { cluster, n1, n2 in
            let (ana, _) = try await ClusterIntegrationTests.player(n1, "ana")
            ana.send(["type": "host", "id": "h", "scenarioId": "ordering-coffee"])
            let session = try #require(await ana.expect("joined")?.object("session"))
            let code = try #require(session.string("joinCode"))
            for node in [n1, n2] {
                let found = try await HTTPTestClient.request("GET", port: node.port, "/api/join-codes/\(code)", token: HubTestServer.token("ben"))
                #expect(found.status == 200)
                #expect(found.json?["node"] as? String == "n1")
                #expect(found.json?["url"] as? String == "ws://front/node/n1/ws")
                #expect(found.json?["sessionId"] as? String == session.string("sessionId"))
            }
        }
    }
}
