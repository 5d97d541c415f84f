import Foundation
import HubDomain
import SessionHubServer
import Testing

/// Operators see one cluster: two real hubs on an ``InMemoryCluster`` whose operator routes,
/// asked on either node, list both nodes' sessions and act on a session where its owner is.
@Suite("Cluster operators over HTTP (in-memory cluster)", .timeLimit(.minutes(2)))
struct ClusterOperatorsIntegrationTests {
    static let admin = HubTestServer.token("ops", name: "Ops", admin: true)

    @Test func everyNodeListsTheWholeClusterAndActsOnTheOwner() async throws {
        try await ClusterIntegrationTests.withTwoNodes { cluster, n1, n2 in
            let (ana, _) = try await ClusterIntegrationTests.player(n1, "ana")
            ana.send(["type": "host", "id": "h", "scenarioId": "ordering-coffee"])
            let first = try #require(await ana.expect("joined")?.object("session")?.string("sessionId"))
            ana.send(["type": "say", "id": "s", "textNative": "Un café, por favor."])
            _ = await ana.expect("line")
            let (ben, _) = try await ClusterIntegrationTests.player(n2, "ben")
            ben.send(["type": "startSolo", "id": "s", "scenarioId": "ordering-coffee"])
            let second = try #require(await ben.expect("joined")?.object("session")?.string("sessionId"))

            for node in [n1, n2] {
                let list = try await HTTPTestClient.request("GET", port: node.port, "/admin/api/sessions?tail=5", token: Self.admin)
                #expect(list.status == 200)
                let sessions = list.json?["sessions"] as? [[String: Any]] ?? []
                let owners = Dictionary(sessions.map { ($0["sessionId"] as? String ?? "", $0["node"] as? String ?? "") }) { a, _ in a }
                #expect(owners == [first: "n1", second: "n2"], "\(list.json ?? [:])")
                #expect(list.json?["count"] as? Int == 2)
                let nodes = (list.json?["nodes"] as? [[String: Any]] ?? []).compactMap { $0["node"] as? String }.sorted()
                #expect(nodes == ["n1", "n2"])
                let hosted = sessions.first { $0["sessionId"] as? String == first }
                #expect((hosted?["lines"] as? [Any])?.count == 1, "the tail of the transcript comes along")
            }
            // One session, asked on the node that does not own it.
            let detail = try await HTTPTestClient.request("GET", port: n2.port, "/admin/api/sessions/\(first)", token: Self.admin)
            #expect(detail.status == 200)
            #expect(detail.json?["node"] as? String == "n1")
            #expect((detail.json?["lines"] as? [Any])?.count == 1)
            // Removing a participant and ending, from the other node: done on the owner.
            let ended = try await HTTPTestClient.request("POST", port: n2.port, "/admin/api/sessions/\(first)/end", token: Self.admin)
            #expect(ended.status == 200, "\(String(decoding: ended.body, as: UTF8.self))")
            #expect(ended.json?["cause"] as? String == "operatorEnded")
            #expect(await ana.expect("ended")?.string("cause") == "operatorEnded")
            let removed = try await HTTPTestClient.request("DELETE", port: n1.port, "/admin/api/sessions/\(second)/participants/ben",
                                                           token: Self.admin)
            #expect(removed.status == 200)
            #expect(removed.json?["sessionEnded"] as? Bool == true)
            // Gone everywhere: 404 from both nodes.
            for node in [n1, n2] {
                for id in [first, second] {
                    let gone = try await HTTPTestClient.request("GET", port: node.port, "/admin/api/sessions/\(id)", token: Self.admin)
                    #expect(gone.status == 404)
                }
            }
            // A player's token is refused on the owner too (the relay carries the caller's token).
            let player = try await HTTPTestClient.request("GET", port: n2.port, "/admin/api/sessions", token: HubTestServer.token("ana"))
            #expect(player.status == 403)
        }
    }

    @Test func theDashboardFeedOfEitherNodeShowsTheWholeCluster() async throws {
        try await ClusterIntegrationTests.withTwoNodes { cluster, n1, n2 in
            let (ana, _) = try await ClusterIntegrationTests.player(n1, "ana")
            ana.send(["type": "startSolo", "id": "s", "scenarioId": "ordering-coffee"])
            let solo = try #require(await ana.expect("joined")?.object("session")?.string("sessionId"))
            ana.send(["type": "say", "id": "l", "textNative": "Un café, por favor."])
            _ = await ana.expect("line")

            let feed = try await FeedClient.connect(port: n2.port)
            feed.send(#"{"type":"auth","token":"\#(Self.admin)"}"#)
            #expect(await feed.next(type: "welcome") != nil)
            let snapshot = try #require(await feed.next(type: "snapshot") { snapshot in
                (snapshot["sessions"] as? [[String: Any]] ?? []).contains { $0["sessionId"] as? String == solo }
            })
            let listed = (snapshot["sessions"] as? [[String: Any]] ?? []).first { $0["sessionId"] as? String == solo }
            #expect(listed?["node"] as? String == "n1")
            #expect((listed?["lines"] as? [Any])?.count == 1, "the transcript's tail comes from the owner")
            #expect(snapshot["node"] as? String == "n2")
            #expect(snapshot["sessionCount"] as? Int == 1)
            let nodes = (snapshot["nodes"] as? [[String: Any]] ?? []).compactMap { $0["node"] as? String }.sorted()
            #expect(nodes == ["n1", "n2"])
            feed.connection.close()
        }
    }

    @Test func aPeerThatDoesNotAnswerIsReportedAndItsSessionsAreNotFaked() async throws {
        try await ClusterIntegrationTests.withTwoNodes { cluster, n1, n2 in
            let (ana, _) = try await ClusterIntegrationTests.player(n2, "ana")
            ana.send(["type": "startSolo", "id": "s", "scenarioId": "ordering-coffee"])
            let solo = try #require(await ana.expect("joined")?.object("session")?.string("sessionId"))
            // n2's HTTP goes away while the cluster still lists it (and its session) as alive.
            cluster.update("n2", internalURL: "http://127.0.0.1:1")
            let list = try await HTTPTestClient.request("GET", port: n1.port, "/admin/api/sessions", token: Self.admin)
            #expect(list.status == 200)
            #expect(list.json?["count"] as? Int == 0)
            let nodes = list.json?["nodes"] as? [[String: Any]] ?? []
            let n2View = nodes.first { $0["node"] as? String == "n2" }
            #expect(n2View?["reachable"] as? Bool == false)
            let end = try await HTTPTestClient.request("POST", port: n1.port, "/admin/api/sessions/\(solo)/end", token: Self.admin)
            #expect(end.status == 502)
            #expect(end.json?["code"] as? String == "node_unreachable")
        }
    }
}
