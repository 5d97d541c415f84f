import Logging
import NIOCore
import NIOPosix
import Testing
import WebSocket
@testable import WebSocketTransport

/// Frames, messages and a close sent from off the connection's event loop (as a session's
/// broadcasts and a task's replies are) go through the loop's ``LoopOutbox``: a real server and
/// client on loopback check that they arrive complete and in the order they were sent.
@Suite(.timeLimit(.minutes(1)))
struct LoopOutboxIntegrationTests {
    /// On `go:N`, sends N messages from a detached task, alternating a prepared frame and a text
    /// message, then closes with 4001.
    final class Burst: WebSocketEndpoint, Sendable {
        func webSocket(_ socket: WebSocketSocket, didReceive message: WebSocketMessage) {
            guard case .text(let buffer) = message, let count = Int(String(buffer: buffer).dropFirst(3)) else { return }
            Task.detached {
                for index in 0..<count {
                    if index % 2 == 0 {
                        socket.send(PreparedFrame(text: "m\(index)"))
                    } else {
                        socket.send(text: "m\(index)")
                    }
                    if index % 97 == 0 { await Task.yield() }
                }
                socket.close(code: WebSocketCloseCode(4001), reason: "done")
            }
        }
    }

    struct Router: WebSocketRouter {
        func route(_ upgrade: AcceptedUpgrade, remoteAddress: SocketAddress?, clientAddress: String?) -> WebSocketRouteDecision {
            .accept(Burst(), WebSocketRouteOptions())
        }
    }

    struct Responder: HTTPResponder {
        func respond(to request: HTTPRequest) async -> HTTPResponse { .text(.notFound, "no") }
    }

    @Test("Calls made off the loop arrive in the order they were made, and the close comes last")
    func offLoopCallsKeepTheirOrder() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let server = WebSocketServer(configuration: WebSocketServerConfiguration(port: 0), router: Router(),
                                     responder: Responder(), group: group, logger: Logger(label: "test"))
        let port = try #require(try await server.start().port)
        let count = 5_000
        var received: [String] = []
        var close: WebSocketCloseCode?
        do {
            let client = try await WebSocketClient.connect(to: try WebSocketURL(parsing: "ws://127.0.0.1:\(port)/burst"),
                                                           group: group)
            client.send(text: "go:\(count)")
            for await event in client.events {
                switch event {
                case .message(.text(let buffer)): received.append(String(buffer: buffer))
                case .message: break
                case .closed(let code, _): close = code
                }
            }
        } catch {
            await server.shutdown()
            try await group.shutdownGracefully()
            throw error
        }
        await server.shutdown()
        try await group.shutdownGracefully()
        #expect(received == (0..<count).map { "m\($0)" })
        #expect(close == WebSocketCloseCode(4001))
    }
}
