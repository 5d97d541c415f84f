import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing
import WebSocket
@testable import WebSocketTransport

/// The HTTP phase's deadlines and body limits on the real server pipeline, on a testing channel
/// whose clock the test moves (`advanceTime`; the async variant, since the responder answers
/// from a task on another thread).
@Suite struct HTTPPhaseHandlerTests {
    struct Router: WebSocketRouter {
        func route(_ upgrade: AcceptedUpgrade, remoteAddress: SocketAddress?, clientAddress: String?) -> WebSocketRouteDecision {
            .accept(RecordingEndpoint(echo: true), WebSocketRouteOptions())
        }
    }

    /// Answers `ok:<path>:<body bytes>`; `/small` accepts bodies of at most 100 bytes.
    struct Responder: HTTPResponder {
        func respond(to request: HTTPRequest) async -> HTTPResponse {
            .text(.ok, "ok:\(request.path):\(request.body.readableBytes)")
        }
        func bodyLimit(for head: HTTPRequestHead) -> Int? { head.uri == "/small" ? 100 : nil }
    }

    let registry = ConnectionRegistry()

    func makeChannel() async throws -> NIOAsyncTestingChannel {
        var policy = ConnectionPolicy()
        policy.requestHeadTimeout = .seconds(10)
        policy.requestBodyTimeout = .seconds(30)
        policy.keepAliveTimeout = .seconds(20)
        let configuration = WebSocketServerConfiguration(connectionPolicy: policy)
        let channel = NIOAsyncTestingChannel()
        let registry = self.registry
        try await channel.testingEventLoop.executeInContext {
            try WebSocketServer.installHTTPHandlers(
                on: channel, configuration: configuration, router: Router(),
                responder: Responder(), registry: registry, logger: Logger(label: "test"))
        }
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1))
        return channel
    }

    func send(_ channel: NIOAsyncTestingChannel, _ text: String) async throws {
        try await channel.writeInbound(ByteBuffer(string: text))
    }

    func advance(_ channel: NIOAsyncTestingChannel, _ amount: TimeAmount) async {
        await channel.testingEventLoop.advanceTime(by: amount)
    }

    func output(_ channel: NIOAsyncTestingChannel) async throws -> String {
        var all = ByteBuffer()
        while var chunk = try await channel.readOutbound(as: ByteBuffer.self) { all.writeBuffer(&chunk) }
        return String(buffer: all)
    }

    /// Waits until the async responder answered (it runs in a task).
    func awaitResponse(_ channel: NIOAsyncTestingChannel) async throws -> String {
        var response = ""
        for _ in 0..<2000 where !response.contains("ok:") {
            try await Task.sleep(nanoseconds: 5_000_000)
            await channel.testingEventLoop.run()
            response += try await output(channel)
        }
        return response
    }

    @Test func aConnectionThatSendsNothingIsClosedSilentlyAtTheHeadDeadline() async throws {
        let channel = try await makeChannel()
        await advance(channel, .milliseconds(9_900))
        #expect(channel.isActive)
        await advance(channel, .milliseconds(100))
        #expect(!channel.isActive)
        #expect(try await output(channel).isEmpty)
        #expect(registry.statistics.httpTimeouts(.head) == 1)
    }

    @Test func aHeadDribbledAByteAtATimeGets408AtTheSameDeadline() async throws {
        let channel = try await makeChannel()
        for byte in "GET /x HTTP/1.1\r\n".utf8.prefix(9) {
            try await channel.writeInbound(ByteBuffer(bytes: [byte]))
            await advance(channel, .seconds(1))
        }
        #expect(channel.isActive)
        await advance(channel, .seconds(1))
        #expect(try await output(channel).hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
        #expect(!channel.isActive)
        #expect(registry.statistics.httpTimeouts(.head) == 1)
    }

    @Test func aBodyThatStallsHalfWayGets408AtTheBodyDeadline() async throws {
        let channel = try await makeChannel()
        try await send(channel, "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n" + String(repeating: "a", count: 500))
        await advance(channel, .seconds(29))
        #expect(channel.isActive)
        try await send(channel, "more")  // progress does not extend it
        await advance(channel, .seconds(1))
        #expect(try await output(channel).hasPrefix("HTTP/1.1 408"))
        #expect(!channel.isActive)
        #expect(registry.statistics.httpTimeouts(.body) == 1)
    }

    @Test func anIdleKeepAliveConnectionIsClosedSilentlyAndANextRequestGetsItsOwnHeadDeadline() async throws {
        let channel = try await makeChannel()
        try await send(channel, "GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try await awaitResponse(channel).hasSuffix("ok:/a:0"))
        // Well past the first head deadline: the response restarted the clock (idle, 20 s).
        await advance(channel, .seconds(19))
        #expect(channel.isActive)
        try await send(channel, "GET /b HTTP/1.1\r\n")  // a second request begins...
        await advance(channel, .seconds(9))
        #expect(channel.isActive)  // ...with 10 s for its head from its first byte
        await advance(channel, .seconds(1))
        #expect(try await output(channel).hasPrefix("HTTP/1.1 408"))
        #expect(!channel.isActive)

        let idle = try await makeChannel()
        try await send(idle, "GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try await awaitResponse(idle).hasSuffix("ok:/a:0"))
        await advance(idle, .seconds(20))
        #expect(!idle.isActive)
        #expect(try await output(idle).isEmpty)
        #expect(registry.statistics.httpTimeouts(.idle) == 1)
    }

    @Test func anUpgradedConnectionHasNoHTTPDeadline() async throws {
        let channel = try await makeChannel()
        try await send(channel, "GET /echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        #expect(try await output(channel).hasPrefix("HTTP/1.1 101"))
        await advance(channel, .seconds(25))  // past head and body deadlines, before the first ping
        #expect(channel.isActive)
        _ = try? await channel.finish()
    }

    @Test func aBodyOverTheRoutesLimitIsRefusedFromContentLengthBeforeItIsRead() async throws {
        let channel = try await makeChannel()
        try await send(channel, "POST /small HTTP/1.1\r\nHost: x\r\nContent-Length: 101\r\n\r\n")
        let response = try await output(channel)
        #expect(response.hasPrefix("HTTP/1.1 413"))
        #expect(response.contains("at most 100 bytes"))
        #expect(!channel.isActive)
    }

    @Test func aChunkedBodyOverTheRoutesLimitIsRefusedWhileStreaming() async throws {
        let channel = try await makeChannel()
        try await send(channel, "POST /small HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "32\r\n" + String(repeating: "a", count: 50) + "\r\n")
        #expect(try await output(channel).isEmpty)
        try await send(channel, "33\r\n" + String(repeating: "a", count: 51) + "\r\n")
        #expect(try await output(channel).hasPrefix("HTTP/1.1 413"))
    }

    @Test func aBodyAtTheRoutesLimitAndALargerOneElsewhereAreServed() async throws {
        let channel = try await makeChannel()
        try await send(channel, "POST /small HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n" + String(repeating: "a", count: 100))
        #expect(try await awaitResponse(channel).hasSuffix("ok:/small:100"))
        try await send(channel, "POST /big HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n" + String(repeating: "a", count: 5000))
        #expect(try await awaitResponse(channel).hasSuffix("ok:/big:5000"))
        _ = try? await channel.finish()
    }
}
