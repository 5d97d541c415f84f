import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing
import WebSocket
@testable import WebSocketTransport

/// A connection moved to another event loop (``WebSocketSocket/move(to:)``): a real server with
/// two loops and a real client on loopback, with permessage-deflate (context takeover, so a
/// compression state left behind would garble every later message), messages pipelined across
/// the moves, a large message split over reads, and a task writing from off the loop meanwhile.
@Suite(.timeLimit(.minutes(1)))
struct ConnectionMoveIntegrationTests {
    /// Echoes text on the loop; `move` moves the connection to the other loop and answers
    /// `moved:<result>:<now on the target>` (a move is refused while the socket has a backlog of
    /// unwritten bytes: it is tried again a few times); `burst:N` writes N messages `m<i>` from a
    /// task off the loop, alternating prepared frames and messages.
    final class Mover: WebSocketEndpoint, Sendable {
        let loops: [any EventLoop]
        let sockets = NIOLockedValueBox<[WebSocketSocket]>([])

        init(loops: [any EventLoop]) { self.loops = loops }

        func webSocketDidOpen(_ socket: WebSocketSocket) {
            sockets.withLockedValue { $0.append(socket) }
        }

        func webSocket(_ socket: WebSocketSocket, didReceive message: WebSocketMessage) {
            guard case .text(let buffer) = message else { return }
            let text = String(buffer: buffer)
            if text == "move" {
                let from = socket.eventLoop
                guard let target = loops.first(where: { !($0 === from) }) else { return }
                Task {
                    var moved = false
                    for _ in 0..<50 where !moved {
                        moved = await socket.move(to: target)
                        if !moved { try? await Task.sleep(for: .milliseconds(10)) }
                    }
                    socket.send(text: "moved:\(moved):\(socket.eventLoop === target)")
                }
            } else if text.hasPrefix("burst:"), let count = Int(text.dropFirst(6)) {
                Task.detached {
                    for index in 0..<count {
                        if index % 2 == 0 { socket.send(PreparedFrame(text: "m\(index)")) } else { socket.send(text: "m\(index)") }
                        if index % 17 == 0 { await Task.yield() }
                    }
                }
            } else {
                socket.send(message)
            }
        }
    }

    struct Router: WebSocketRouter {
        let endpoint: Mover
        func route(_ upgrade: AcceptedUpgrade, remoteAddress: SocketAddress?, clientAddress: String?) -> WebSocketRouteDecision {
            .accept(endpoint, WebSocketRouteOptions())
        }
    }

    struct Responder: HTTPResponder {
        func respond(to request: HTTPRequest) async -> HTTPResponse { .text(.notFound, "no") }
    }

    /// A server with two loops, every connection on one `Mover`.
    private static func startServer() async throws
        -> (MultiThreadedEventLoopGroup, [any EventLoop], Mover, WebSocketServer, Int) {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loops = Array(group.makeIterator())
        let endpoint = Mover(loops: loops)
        let server = WebSocketServer(configuration: WebSocketServerConfiguration(port: 0), router: Router(endpoint: endpoint),
                                     responder: Responder(), group: group, logger: Logger(label: "test"))
        let port = try #require(try await server.start().port)
        return (group, loops, endpoint, server, port)
    }

    @Test("A moved connection keeps its messages, their order and its compression, and counts once")
    func movedConnectionKeepsEverything() async throws {
        let (group, _, _, server, port) = try await Self.startServer()
        let clients = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let client = try await WebSocketClient.connect(to: try WebSocketURL(parsing: "ws://127.0.0.1:\(port)/move"),
                                                       group: clients)
        #expect(client.socket.compression != nil)
        // Large and only partly compressible: its frame spans several reads, some of it likely
        // in the parser or the kernel when the connection moves.
        var seed: UInt64 = 42
        let large = String((0..<200_000).map { _ -> Character in
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Character(UnicodeScalar(UInt8(97 + (seed >> 33) % 26)))
        })
        var expectedEchoes: [String] = []
        let moves = 6, burst = 2_000
        var echoes: [String] = [], bursts: [String] = [], moved: [String] = []
        var events = client.events.makeAsyncIterator()
        // Each round pipelines messages before and after its move; the next move waits for the
        // answer to this one (a connection moves once at a time).
        for round in 0..<moves {
            for index in 0..<40 {
                client.send(text: "e\(round)-\(index)")
                expectedEchoes.append("e\(round)-\(index)")
            }
            if round == 2 { client.send(text: "burst:\(burst)") }
            client.send(text: "move")
            client.send(text: large)
            expectedEchoes.append(large)
            for index in 0..<40 {
                client.send(text: "f\(round)-\(index)")
                expectedEchoes.append("f\(round)-\(index)")
            }
            while moved.count <= round, let event = await events.next() {
                guard case .message(.text(let buffer)) = event else { continue }
                let text = String(buffer: buffer)
                if text.hasPrefix("moved:") { moved.append(text) } else if text.hasPrefix("m") { bursts.append(text) } else { echoes.append(text) }
            }
        }
        while echoes.count < expectedEchoes.count || bursts.count < burst, let event = await events.next() {
            guard case .message(.text(let buffer)) = event else { continue }
            let text = String(buffer: buffer)
            if text.hasPrefix("m") { bursts.append(text) } else { echoes.append(text) }
        }
        #expect(moved == Array(repeating: "moved:true:true", count: moves))
        #expect(echoes.count == expectedEchoes.count)
        #expect(echoes == expectedEchoes)
        #expect(bursts == (0..<burst).map { "m\($0)" })
        // One connection all along: counted once while open, released once when it closes.
        #expect(server.statistics.openConnections == 1)
        #expect(server.connectionCount == 1)
        client.close()
        while await events.next() != nil {}
        var open = server.statistics.openConnections
        for _ in 0..<200 where open != 0 {
            try await Task.sleep(for: .milliseconds(10))
            open = server.statistics.openConnections
        }
        #expect(open == 0)
        #expect(server.connectionCount == 0)
        await server.shutdown()
        try await clients.shutdownGracefully()
        try await group.shutdownGracefully()
    }

    @Test("A connection already on the target stays; a client connection cannot move")
    func movesThatDoNotHappen() async throws {
        let (group, loops, endpoint, server, port) = try await Self.startServer()
        let client = try await WebSocketClient.connect(to: try WebSocketURL(parsing: "ws://127.0.0.1:\(port)/move"),
                                                       group: group)
        client.send(text: "hello")
        for await event in client.events {
            if case .message = event { break }
        }
        let serverSide = try #require(endpoint.sockets.withLockedValue { $0.first })
        #expect(await serverSide.move(to: serverSide.eventLoop))
        let other = try #require(loops.first { !($0 === client.socket.eventLoop) })
        #expect(await client.socket.move(to: other) == false)
        client.close()
        for await _ in client.events {}
        await server.shutdown()
        try await group.shutdownGracefully()
    }
}
