import Foundation
import HubDomain
import SessionHubClient
import SessionHubServer
import Testing
import WebSocket

/// Several real hubs in one process on one ``InMemoryCluster`` (the model of the shared
/// PostgreSQL store), played over real sockets: redirects, adoption after a node stops answering
/// (its members are closed with 1012 and resume on the survivor), and a rolling upgrade (a node
/// stopping with peers alive hands its sessions over instead of ending them).
@Suite("Cluster over WebSocket (in-memory cluster)", .timeLimit(.minutes(2)))
struct ClusterIntegrationTests {
    struct Node {
        let id: String
        let server: HubServer
        let port: Int
    }

    static func start(_ cluster: InMemoryCluster, _ id: String) async throws -> Node {
        var configuration = HubServerConfiguration(port: 0, threads: 1, secret: HubTestServer.secret)
        configuration.cluster.heartbeatInterval = .milliseconds(100)
        // Nodes are declared dead here by losing their liveness proof (`InMemoryCluster.crash`),
        // at once; the timeout (for hung nodes) stays long so a loaded test machine's late
        // heartbeats never evict a node by accident.
        configuration.cluster.livenessTimeout = .seconds(60)
        let server = try HubServer(configuration: configuration, persistence: .inMemoryCluster(cluster.node(id)))
        let port = try await server.start()
        cluster.update(id, internalURL: "http://127.0.0.1:\(port)")
        return Node(id: id, server: server, port: port)
    }

    /// Runs `body` with two nodes, `n1` and `n2`, on a fresh in-memory cluster, then shuts both down.
    static func withTwoNodes(_ body: (InMemoryCluster, Node, Node) async throws -> Void) async throws {
        let cluster = InMemoryCluster()
        let n1 = try await start(cluster, "n1")
        let n2 = try await start(cluster, "n2")
        do {
            try await body(cluster, n1, n2)
        } catch {
            await n1.server.shutdown()
            await n2.server.shutdown()
            throw error
        }
        await n1.server.shutdown()
        await n2.server.shutdown()
    }

    static func player(_ node: Node, _ user: String) async throws -> (HubTestClient, JSONObject) {
        let client = try await HubTestClient.connect(port: node.port, token: HubTestServer.token(user))
        let welcome = try #require(await client.expect("welcome"))
        return (client, welcome)
    }

    /// The close code the client gets next (skipping messages), or nil.
    static func closeCode(_ client: HubTestClient, seconds: Double = 5) async -> (WebSocketCloseCode?, String)? {
        while let item = await client.next(seconds: seconds) {
            if case .closed(let code, let reason) = item { return (code, reason) }
        }
        return nil
    }

    /// Resumes on `node`, retrying while the session is between owners; returns `resumed`.
    static func resume(_ client: HubTestClient, token: String, lastSeq: Int) async throws -> JSONObject {
        for attempt in 0..<40 {
            client.send(["type": "resume", "id": "r\(attempt)", "resumeToken": token, "lastSeq": lastSeq])
            let answer = try #require(await client.nextMessage())
            if answer.type == "resumed" { return answer }
            #expect(answer.string("code") == "session_elsewhere", "\(answer.text)")
            #expect(answer.string("url") == nil, "the survivor owns it or nobody does yet: \(answer.text)")
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("never resumed")
        throw CancellationError()
    }

    @Test func joinAndResumeOnAnotherNodeAreSentToTheOwner() async throws {
        let cluster = InMemoryCluster()
        let n1 = try await Self.start(cluster, "n1")
        let n2 = try await Self.start(cluster, "n2")
        defer { Task { await n1.server.shutdown(); await n2.server.shutdown() } }
        let (ana, _) = try await Self.player(n1, "ana")
        ana.send(["type": "host", "id": "h", "scenarioId": "ordering-coffee"])
        let code = try #require(await ana.expect("joined")?.object("session")?.string("joinCode"))

        let (ben, _) = try await Self.player(n2, "ben")
        ben.send(["type": "join", "id": "j", "code": code])
        let redirect = try #require(await ben.expect("error"))
        #expect(redirect.string("code") == "session_elsewhere")
        #expect(redirect.string("ref") == "j")
        #expect(redirect.string("node") == "n1")
        #expect(redirect.string("url") == "ws://front/node/n1/ws")

        // Ana's second device lands on n2: welcome names the node of her seat and where it is.
        let (_, welcome) = try await Self.player(n2, "ana")
        #expect(welcome.string("resumableNode") == "n1")
        #expect(welcome.string("resumableUrl") == "ws://front/node/n1/ws")
        let (_, home) = try await Self.player(n1, "ana")
        #expect(home.string("resumableNode") == "n1")
        #expect(home.string("resumableUrl") == nil)
    }

    @Test func whenANodeStopsAnsweringASurvivorAdoptsItsSessionsAndPlayersResumeThere() async throws {
        let cluster = InMemoryCluster()
        let n1 = try await Self.start(cluster, "n1")
        let n2 = try await Self.start(cluster, "n2")
        defer { Task { await n1.server.shutdown(); await n2.server.shutdown() } }
        let (ana, _) = try await Self.player(n1, "ana")
        ana.send(["type": "host", "id": "h", "scenarioId": "ordering-coffee"])
        let joined = try #require(await ana.expect("joined"))
        let code = try #require(joined.object("session")?.string("joinCode"))
        let anaToken = try #require(joined.string("resumeToken"))
        let (ben, _) = try await Self.player(n1, "ben")
        ben.send(["type": "join", "id": "j", "code": code])
        let benToken = try #require(await ben.expect("joined")?.string("resumeToken"))
        ana.send(["type": "say", "id": "a1", "clientId": "ana-1", "textNative": "Hola, ¿qué desea?"])
        let line = try #require(await ben.expect("line"))
        let benSeq = try #require(line.int("seq"))
        let anaSeq = try #require(await ana.expect("line")?.int("seq"))

        // n1's liveness proof disappears (as a killed process's database lock does): n2 declares
        // it dead and adopts the session; n1 learns it was evicted and lets its members go.
        cluster.crash("n1")
        for client in [ana, ben] {
            let closed = await Self.closeCode(client)
            #expect(closed?.0 == .serviceRestart, "\(String(describing: closed))")
            #expect(closed?.1.hasPrefix("session_moved") == true)
        }

        let (ana2, welcome) = try await Self.player(n2, "ana")
        #expect(welcome.string("resumableNode") == "n2")
        let anaResumed = try await Self.resume(ana2, token: anaToken, lastSeq: anaSeq)
        #expect(anaResumed.string("mode") == "replay")
        let (ben2, _) = try await Self.player(n2, "ben")
        let benResumed = try await Self.resume(ben2, token: benToken, lastSeq: 0)
        #expect(benResumed.string("mode") == "replay")
        let replayed = try #require(await ben2.expect("line"))
        #expect(replayed.int("seq") == benSeq, "the journaled line, with its seq")
        #expect(replayed.object("line")?.string("clientId") == "ana-1")

        // Ana sends her line again: it went through before the failover, so it is not recorded twice.
        ana2.send(["type": "say", "id": "a1", "clientId": "ana-1", "textNative": "Hola, ¿qué desea?"])
        #expect(try #require(await ana2.expect("error")).string("code") == "duplicate_line")
        ben2.send(["type": "say", "id": "b1", "clientId": "ben-1", "textNative": "Un café, por favor."])
        let next = try #require(await ana2.expect("line"))
        #expect(next.object("line")?.string("textNative") == "Un café, por favor.")
        let texts = cluster.entries(of: try #require(joined.object("session")?.string("sessionId"))).compactMap { entry -> String? in
            if case .line(let line, _) = entry.event { return line.textNative }
            return nil
        }
        #expect(texts == ["Hola, ¿qué desea?", "Un café, por favor."])
    }

    @Test func aNodeStoppingWithPeersAliveHandsItsSessionsOver() async throws {
        let cluster = InMemoryCluster()
        let n1 = try await Self.start(cluster, "n1")
        let n2 = try await Self.start(cluster, "n2")
        defer { Task { await n2.server.shutdown() } }
        let (ana, _) = try await Self.player(n1, "ana")
        ana.send(["type": "startSolo", "id": "s", "scenarioId": "ordering-coffee"])
        let joined = try #require(await ana.expect("joined"))
        let token = try #require(joined.string("resumeToken"))
        let sessionId = try #require(joined.object("session")?.string("sessionId"))
        ana.send(["type": "say", "id": "a1", "textNative": "Un café, por favor."])
        let seq = try #require(await ana.expect("line")?.int("seq"))

        await n1.server.shutdown()
        let left = try #require(await ana.expect("left"))
        #expect(left.string("reason") == "handedOver")
        let closed = await Self.closeCode(ana)
        #expect(closed?.0 == .goingAway)
        #expect(closed?.1.hasPrefix("session_handed_over") == true, "\(String(describing: closed))")
        #expect(cluster.owner(of: sessionId)?.node != "n1")

        let (again, _) = try await Self.player(n2, "ana")
        let resumed = try await Self.resume(again, token: token, lastSeq: seq)
        #expect(resumed.string("mode") == "replay", "the survivor rebuilt the session with its seq: \(resumed.text)")
        #expect(cluster.owner(of: sessionId)?.node == "n2")
        again.send(["type": "end", "id": "e"])
        #expect(try #require(await again.expect("ended")).string("cause") == "hostEnded")
    }

    @Test func theClientLibraryFollowsARedirectToTheOwnerOfTheSession() async throws {
        try await Self.withTwoNodes { cluster, n1, n2 in
            // Each node's public URL is its own port here (a front would route /node/<id>/ws).
            cluster.update("n1", publicURL: "ws://127.0.0.1:\(n1.port)/ws")
            cluster.update("n2", publicURL: "ws://127.0.0.1:\(n2.port)/ws")
            let ana = try SessionHubClient(url: "ws://127.0.0.1:\(n1.port)/ws") { HubTestServer.token("ana") }
            let ben = try SessionHubClient(url: "ws://127.0.0.1:\(n2.port)/ws") { HubTestServer.token("ben") }
            try await ana.connect()
            try await ben.connect()
            let code = try #require(try await ana.host(scenarioId: "ordering-coffee").joinCode)
            // Ben's node does not own the session: the client follows session_elsewhere to n1.
            let joined = try await ben.join(code: code)
            #expect(joined.joinCode == code)
            #expect(await ben.welcome?.userId == "ben")
            let line = try await ben.say("Hola desde n2", translation: "Hello from n2")
            var heard = false
            for _ in 0..<200 where !heard {
                heard = await ana.session?.lines.contains(line) == true
                if !heard { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(heard, "the owner broadcast Ben's line to Ana")
            await ana.close()
            await ben.close()
        }
    }

    @Test func theClientLibraryResumesOnTheSurvivorWhenItsNodeHandsTheSessionOver() async throws {
        let cluster = InMemoryCluster()
        let n1 = try await Self.start(cluster, "n1")
        let n2 = try await Self.start(cluster, "n2")
        defer { Task { await n2.server.shutdown() } }
        // The front: to n1 first, to n2 once n1 is gone.
        let front = try await TCPProxy(to: n1.port)
        let ana = try SessionHubClient(url: "ws://127.0.0.1:\(front.port)/ws",
                                       reconnect: ReconnectPolicy(initialDelay: .milliseconds(50), maxDelay: .milliseconds(200))) {
            HubTestServer.token("ana")
        }
        try await ana.connect()
        _ = try await ana.startSolo(scenarioId: "ordering-coffee")
        let first = try await ana.say("Un café, por favor.", translation: "A coffee, please.")

        front.retarget(to: n2.port)
        await n1.server.shutdown()
        // left{handedOver} and close 1001: the client comes back through the front and resumes.
        let deadline = ContinuousClock.now + .seconds(20)
        var resumed = false
        while ContinuousClock.now < deadline, !resumed {
            if case .connected = await ana.state, await ana.isInSession, await ana.welcome != nil { resumed = true } else {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        let state = await ana.state
        #expect(resumed, "back in the session on the survivor: \(state)")
        let second = try await ana.say("Y un croissant.", translation: "And a croissant.")
        let model = try #require(await ana.session)
        #expect(model.lines == [first, second], "nothing lost, nothing twice")
        _ = try await ana.end()
        await ana.close()
        await front.stop()
    }
}
