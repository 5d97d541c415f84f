import Logging
import NIOCore
import NIOPosix
import Testing
import WebSocket
@testable import WebSocketTransport

/// The HTTP-phase deadlines and the connection caps of a real server on an ephemeral loopback
/// port, with raw TCP clients: short timeouts, generous margins.
@Suite(.timeLimit(.minutes(1)))
struct ConnectionPolicyIntegrationTests {
    /// `/open` upgrades without authentication; `/auth` awaits it: the first message `user:NAME`
    /// authenticates (at most two connections per name) and is answered `ok` or `refused`.
    struct Router: WebSocketRouter {
        func route(_ upgrade: AcceptedUpgrade, remoteAddress: SocketAddress?, clientAddress: String?) -> WebSocketRouteDecision {
            switch upgrade.request.path {
            case "/open": return .accept(RecordingEndpoint(echo: true), WebSocketRouteOptions())
            case "/auth": return .accept(AuthEndpoint(), WebSocketRouteOptions(awaitsAuthentication: true))
            default: return .reject(.notFound, "nope")
            }
        }
    }

    final class AuthEndpoint: WebSocketEndpoint {
        func webSocket(_ socket: WebSocketSocket, didReceive message: WebSocketMessage) {
            guard case .text(let buffer) = message else { return }
            let name = String(String(buffer: buffer).dropFirst("user:".count))
            socket.send(text: socket.authenticate(as: name, limit: 2) ? "ok" : "refused")
        }
    }

    struct Responder: HTTPResponder {
        func respond(to request: HTTPRequest) async -> HTTPResponse { .text(.ok, "served") }
    }

    /// Every deadline 300 ms, for the tests that wait for them.
    static func shortDeadlines(_ policy: inout ConnectionPolicy) {
        policy.requestHeadTimeout = .milliseconds(300)
        policy.requestBodyTimeout = .milliseconds(300)
        policy.keepAliveTimeout = .milliseconds(300)
    }

    static func withServer(_ adjust: (inout ConnectionPolicy) -> Void = { _ in },
                           _ body: (WebSocketServer, Int) async throws -> Void) async throws {
        var policy = ConnectionPolicy()
        adjust(&policy)
        let server = WebSocketServer(
            configuration: WebSocketServerConfiguration(port: 0, connectionPolicy: policy), router: Router(),
            responder: Responder(), group: MultiThreadedEventLoopGroup.singleton, logger: Logger(label: "test"))
        let port = try #require(try await server.start().port)
        do {
            try await body(server, port)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    static func upgrade(_ path: String) -> String {
        "GET \(path) HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    }

    /// Waits until every count is back to zero.
    static func countsReturnToZero(_ server: WebSocketServer) async -> Bool {
        for _ in 0..<500 {
            let counts = server.connectionCounts
            if counts.leaseCount == 0, counts.open.isEmpty, counts.unauthenticated.isEmpty, counts.principals.isEmpty,
               server.statistics.openConnections == 0 {
                return true
            }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return false
    }

    @Test func aSilentSocketIsClosedAfterTheHeadDeadlineAndAPartialHeadGets408() async throws {
        // 2 s rather than 300 ms: the partial head must be sent before the deadline passes, even
        // on a loaded machine.
        try await Self.withServer({ $0.requestHeadTimeout = .seconds(2) }) { server, port in
            let silent = try await RawConnection.open(port: port)
            let partial = try await RawConnection.open(port: port)
            try await partial.send("GET / HTTP/1.1\r\nHo")
            #expect(await silent.closedByServer(within: 10))
            #expect(silent.text.isEmpty)
            #expect(await partial.closedByServer(within: 10))
            #expect(partial.text.hasPrefix("HTTP/1.1 408"))
            #expect(server.statistics.httpTimeouts(.head) == 2)
            #expect(await Self.countsReturnToZero(server))
        }
    }

    @Test func connectionsPerAddressAreCappedOnAccept() async throws {
        try await Self.withServer({ $0.maxConnectionsPerAddress = 3 }) { server, port in
            var held: [RawConnection] = []
            for _ in 0..<3 {
                let connection = try await RawConnection.open(port: port)
                try await connection.send(Self.upgrade("/open"))
                #expect(await connection.receive("101 Switching Protocols"))
                held.append(connection)
            }
            let fourth = try await RawConnection.open(port: port)
            #expect(await fourth.closedByServer(within: 5))
            #expect(fourth.text.isEmpty)
            #expect(server.statistics.refused(.perAddress) == 1)
            await held[0].close()
            var admitted = false
            for _ in 0..<100 where !admitted {
                try await Task.sleep(nanoseconds: 20_000_000)
                let again = try await RawConnection.open(port: port)
                try? await again.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                admitted = await again.receive("served", within: 1)
                await again.close()
            }
            #expect(admitted)
            for connection in held { await connection.close() }
        }
    }

    @Test func unauthenticatedConnectionsPerAddressAreCappedUntilTheyAuthenticate() async throws {
        try await Self.withServer({ $0.maxUnauthenticatedConnectionsPerAddress = 2 }) { server, port in
            // Upgraded to an endpoint without authentication: no longer unauthenticated.
            let open = try await RawConnection.open(port: port)
            try await open.send(Self.upgrade("/open"))
            #expect(await open.receive("101"))
            // Two that await authentication, then a third TCP connection: refused on accept.
            let first = try await RawConnection.open(port: port)
            try await first.send(Self.upgrade("/auth"))
            #expect(await first.receive("101"))
            let second = try await RawConnection.open(port: port)
            #expect(await !second.closedByServer(within: 0.2))
            let third = try await RawConnection.open(port: port)
            #expect(await third.closedByServer(within: 5))
            #expect(server.statistics.refused(.unauthenticatedPerAddress) == 1)
            // The first authenticates: a place is free again.
            try await first.send(maskedFrame(.text, Array("user:ana".utf8)))
            #expect(await first.receive("ok"))
            let fourth = try await RawConnection.open(port: port)
            #expect(await !fourth.closedByServer(within: 0.5))
            for connection in [open, first, second, fourth] { await connection.close() }
            #expect(await Self.countsReturnToZero(server))
        }
    }

    @Test func aUserHoldsAtMostTheEndpointsNumberOfConnections() async throws {
        try await Self.withServer { server, port in
            var answers: [String] = []
            var held: [RawConnection] = []
            for _ in 0..<3 {
                let connection = try await RawConnection.open(port: port)
                try await connection.send(Self.upgrade("/auth"))
                #expect(await connection.receive("101"))
                try await connection.send(maskedFrame(.text, Array("user:bo".utf8)))
                _ = await connection.receive("ok", "refused")
                answers.append(connection.text.contains("refused") ? "refused" : "ok")
                held.append(connection)
            }
            #expect(answers == ["ok", "ok", "refused"])
            #expect(server.statistics.refused(.perUser) == 1)
            for connection in held { await connection.abort() }
            #expect(await Self.countsReturnToZero(server))
        }
    }

    @Test func aTrustedProxysClientsAreCountedByTheirForwardedAddress() async throws {
        try await Self.withServer({
            $0.trustedProxies = ["127.0.0.1"]
            $0.maxConnectionsPerAddress = 2
        }) { server, port in
            func request(from client: String) -> String {
                "GET / HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 203.0.113.9, \(client)\r\n\r\n"
            }
            var held: [RawConnection] = []
            for _ in 0..<2 {
                let connection = try await RawConnection.open(port: port)
                try await connection.send(request(from: "198.51.100.7"))
                #expect(await connection.receive("served"))
                held.append(connection)
            }
            let third = try await RawConnection.open(port: port)
            try await third.send(request(from: "198.51.100.7"))
            #expect(await third.closedByServer(within: 5))
            #expect(third.text.hasPrefix("HTTP/1.1 429"))
            let other = try await RawConnection.open(port: port)
            try await other.send(request(from: "198.51.100.8"))
            #expect(await other.receive("served"))
            #expect(server.connectionCounts.open == ["198.51.100.7": 2, "198.51.100.8": 1])
            // A pooled proxy connection carries another client's request next: it moves.
            try await held[0].send(request(from: "198.51.100.8"))
            #expect(await held[0].receive("served", times: 2))
            for _ in 0..<100 where server.connectionCounts.open["198.51.100.8"] != 2 {
                try await Task.sleep(nanoseconds: 10_000_000)
            }
            #expect(server.connectionCounts.open == ["198.51.100.7": 1, "198.51.100.8": 2])
            for connection in held + [other] { await connection.close() }
            #expect(await Self.countsReturnToZero(server))
        }
    }

    @Test func countsReturnToZeroAfterManyConnectionsEndingEveryWay() async throws {
        try await Self.withServer({
            Self.shortDeadlines(&$0)
            $0.maxUnauthenticatedConnectionsPerAddress = 8
            $0.maxConnectionsPerAddress = 12
        }) { server, port in
            for round in 0..<6 {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<16 {
                        group.addTask {
                            // Some of these are refused by the caps: that is one more way to end.
                            guard let connection = try? await RawConnection.open(port: port) else { return }
                            switch (round + index) % 8 {
                            case 0: await connection.abort()  // reset right away
                            case 1: try? await connection.send("GET / HT"); await connection.abort()  // reset mid-head
                            case 2: _ = await connection.closedByServer(within: 5)  // silent: the head deadline
                            case 3:
                                try? await connection.send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                                _ = await connection.closedByServer(within: 5)
                            case 4:
                                try? await connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                                _ = await connection.closedByServer(within: 5)  // the keep-alive deadline
                            case 5:
                                try? await connection.send(Self.upgrade("/open"))
                                _ = await connection.receive("101", within: 2)
                                await connection.abort()
                            case 6:
                                try? await connection.send(Self.upgrade("/auth"))
                                _ = await connection.receive("101", within: 2)
                                try? await connection.send(maskedFrame(.text, Array("user:u\(index % 3)".utf8)))
                                _ = await connection.receive("ok", "refused", within: 2)
                                await connection.close()
                            default:
                                try? await connection.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab")
                                _ = await connection.closedByServer(within: 5)  // the body deadline
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            #expect(await Self.countsReturnToZero(server))
        }
    }
}
