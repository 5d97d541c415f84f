import Foundation
import HubDomain
import NIOPosix
import SessionHubServer
import Testing

/// `/metrics` scraped from the real server: the counters move with the traffic.
@Suite("Prometheus metrics", .timeLimit(.minutes(1)))
struct MetricsIntegrationTests {
    /// The value of the sample `name{labels}` (or `name` without labels) in a scrape, if present.
    private static func sample(_ text: String, _ name: String, _ labels: String = "") -> Double? {
        let key = labels.isEmpty ? name : "\(name){\(labels)}"
        for line in text.split(separator: "\n") where line.hasPrefix(key + " ") {
            return Double(line.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    private func scrape(_ port: Int) async throws -> String {
        let reply = try await HTTPTestClient.request("GET", port: port, "/metrics")
        #expect(reply.status == 200)
        return String(decoding: reply.body, as: UTF8.self)
    }

    @Test func countersFollowASessionAndItsErrors() async throws {
        try await HubTestServer.with { port in
            let before = try await scrape(port)
            #expect(Self.sample(before, "sessionhub_connections") == 0)
            // Every message type's series is there from the start, at 0.
            #expect(Self.sample(before, "sessionhub_messages_in_total", #"type="say""#) == 0)
            #expect(Self.sample(before, "sessionhub_messages_in_total", #"type="invalid""#) == 0)

            let client = try await HubTestClient.connect(port: port, token: HubTestServer.token("mia"))
            _ = try #require(await client.expect("welcome"))
            client.send(["type": "startSolo", "id": "s", "scenarioId": "ordering-coffee"])
            _ = try #require(await client.expect("joined"))
            for index in 0..<3 {
                client.send(["type": "say", "id": "l\(index)", "textNative": "Hola número \(index)", "textTranslated": ""])
                _ = try #require(await client.expect("line"))
            }
            client.send(["type": "recast", "id": "bad", "lineId": "l1", "correctedText": "x", "issueTypes": ["grammar"]])
            #expect(try #require(await client.expect("error")).string("code") == "not_allowed")
            client.send(raw: "{not json")
            #expect(try #require(await client.expect("error")).string("code") == "malformed_json")

            let during = try await scrape(port)
            #expect(Self.sample(during, "sessionhub_connections") == 1)
            #expect(Self.sample(during, "sessionhub_users_connected") == 1)
            #expect(Self.sample(during, "sessionhub_sessions", #"mode="solo""#) == 1)
            #expect(Self.sample(during, "sessionhub_messages_in_total", #"type="say""#) == 3)
            #expect(Self.sample(during, "sessionhub_messages_in_total", #"type="invalid""#) == 1)
            #expect(Self.sample(during, "sessionhub_broadcasts_out_total", #"type="line""#) == 3)
            #expect(Self.sample(during, "sessionhub_errors_total", #"code="not_allowed""#) == 1)
            #expect(Self.sample(during, "sessionhub_errors_total", #"code="malformed_json""#) == 1)
            let latencies = try #require(Self.sample(during, "sessionhub_fanout_latency_seconds_count"))
            #expect(latencies >= 3)  // one per delivered broadcast: the three lines at least

            client.send(["type": "end", "id": "e"])
            _ = try #require(await client.expect("ended"))
            let after = try await scrape(port)
            #expect(Self.sample(after, "sessionhub_history_writes_total", #"result="feature_locked""#) == 1)
            #expect(Self.sample(after, "sessionhub_sessions", #"mode="solo""#) == 0)
            #expect(Self.sample(after, "sessionhub_broadcasts_out_total", #"type="ended""#) == 1)
            // A solo session journals its lines: each write counted as durable, none failed.
            #expect(try #require(Self.sample(after, "sessionhub_journal_writes_total", #"result="ok""#)) >= 3)
            #expect(Self.sample(after, "sessionhub_journal_writes_total", #"result="failed""#) == 0)
        }
    }

    @Test("A job that holds an event loop shows as that loop's lag")
    func eventLoopLag() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let configuration = HubServerConfiguration(port: 0, threads: 2, secret: HubTestServer.secret)
        let server = try HubServer(configuration: configuration, persistence: .inMemory(), eventLoopGroup: group)
        _ = try await server.start()
        defer { Task { await server.shutdown() } }
        try await Task.sleep(for: .milliseconds(300))
        let idle = await server.metricsText()
        let idleCount = try #require(Self.sample(idle, "sessionhub_event_loop_lag_seconds_count"))
        #expect(idleCount >= 2, "both loops probed every 50 ms")
        // One loop is held for 250 ms: its next probe runs at least 150 ms late.
        _ = try await group.any().submit { usleep(250_000) }.get()
        try await Task.sleep(for: .milliseconds(200))
        let after = await server.metricsText()
        let count = try #require(Self.sample(after, "sessionhub_event_loop_lag_seconds_count"))
        let under100ms = try #require(Self.sample(after, "sessionhub_event_loop_lag_seconds_bucket", #"le="0.1""#))
        #expect(count - under100ms >= 1, "the held loop's probe ran over 100 ms late")
        #expect(Self.sample(after, "sessionhub_event_loop_lag_seconds_bucket", #"le="1.0""#) == count)
        await server.shutdown()
        try await group.shutdownGracefully()
    }

    @Test func connectionsOverTheLimitAreClosedOnAcceptAndCounted() async throws {
        var configuration = HubServerConfiguration(port: 0, threads: 2, secret: HubTestServer.secret)
        configuration.maxConnections = 2
        let server = try HubServer(configuration: configuration)
        let port = try await server.start()
        defer { Task { await server.shutdown() } }
        var held: [HubTestClient] = []
        for user in ["ona", "two"] {
            let client = try await HubTestClient.connect(port: port, token: HubTestServer.token(user))
            _ = try #require(await client.expect("welcome"))
            held.append(client)
        }
        // The third is accepted by the kernel and closed at once: no upgrade, no welcome.
        let third = try? await HubTestClient.connect(port: port, token: HubTestServer.token("three"))
        #expect(await third?.expect("welcome", seconds: 1) == nil)
        let text = await server.metricsText()
        #expect(Self.sample(text, "sessionhub_connections_refused_total", #"reason="max_connections""#) == 1)
        // A freed place is taken again.
        held[0].drop()
        // Until the server has seen the close, a retry is closed at once; one that gets no answer
        // is dropped, so it cannot hold the freed place.
        var admitted = false
        let deadline = ContinuousClock.now + .seconds(30)
        while !admitted, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            guard let again = try? await HubTestClient.connect(port: port, token: HubTestServer.token("four")) else { continue }
            if await again.expect("welcome", seconds: 10) != nil { admitted = true } else { again.drop() }
        }
        #expect(admitted)
        await server.shutdown()
    }
}
