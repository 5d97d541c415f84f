import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing
import WebSocket
@testable import WebSocketTransport

/// The server pipeline on an EmbeddedChannel: raw HTTP bytes in, raw bytes out.
@Suite struct HTTPUpgradeHandlerTests {
    struct EchoRouter: WebSocketRouter {
        func route(_ upgrade: AcceptedUpgrade, remoteAddress: SocketAddress?, clientAddress: String?) -> WebSocketRouteDecision {
            upgrade.request.path == "/echo" ? .accept(RecordingEndpoint(echo: true), WebSocketRouteOptions()) : .reject(.notFound, "nope")
        }
    }

    struct HealthResponder: HTTPResponder {
        func respond(to request: HTTPRequest) async -> HTTPResponse { .text(.ok, "ok:\(request.path)") }
    }

    func makeChannel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try WebSocketServer.installHTTPHandlers(
            on: channel, configuration: WebSocketServerConfiguration(), router: EchoRouter(),
            responder: HealthResponder(), registry: ConnectionRegistry(), logger: Logger(label: "test"))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    func request(_ path: String, version: String = "13", extra: String = "") -> ByteBuffer {
        ByteBuffer(string: "GET \(path) HTTP/1.1\r\nHost: example.com\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: \(version)\r\n\(extra)\r\n")
    }

    func rawOutput(_ channel: EmbeddedChannel) throws -> [UInt8] {
        var all = ByteBuffer()
        while var chunk = try channel.readOutbound(as: ByteBuffer.self) { all.writeBuffer(&chunk) }
        return Array(all.readableBytesView)
    }

    func output(_ channel: EmbeddedChannel) throws -> String {
        var all = ByteBuffer()
        while var chunk = try channel.readOutbound(as: ByteBuffer.self) { all.writeBuffer(&chunk) }
        return String(buffer: all)
    }

    @Test func upgradesWithTheRFCAcceptValueThenEchoes() throws {
        let channel = try makeChannel()
        var bytes = request("/echo")
        // A frame sent right behind the request reaches the WebSocket handler.
        var frame = maskedFrame(.text, Array("hi".utf8))
        bytes.writeBuffer(&frame)
        try channel.writeInbound(bytes)
        let response = try output(channel)
        channel.embeddedEventLoop.run()  // the decoder's removal, which forwards the leftover bytes, is deferred
        #expect(response.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
        #expect(response.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"))
        #expect(response.hasSuffix("\r\n\r\n"))
        // The echo of the frame that followed the request, written after the 101 response.
        let echo = try rawOutput(channel)
        #expect(echo == [0x81, 0x02] + Array("hi".utf8))
        _ = try? channel.finish()
    }

    @Test func wrongVersionGets426WithSupportedVersion() throws {
        let channel = try makeChannel()
        try channel.writeInbound(request("/echo", version: "8"))
        let response = try output(channel)
        #expect(response.hasPrefix("HTTP/1.1 426"))
        #expect(response.contains("Sec-WebSocket-Version: 13"))
    }

    @Test func unknownRouteIsRefusedWithTheRoutersStatus() throws {
        let channel = try makeChannel()
        try channel.writeInbound(request("/elsewhere"))
        #expect(try output(channel).hasPrefix("HTTP/1.1 404"))
    }

    @Test func negotiatesPermessageDeflate() throws {
        let channel = try makeChannel()
        try channel.writeInbound(request("/echo", extra: "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"))
        let response = try output(channel)
        #expect(response.contains("Sec-WebSocket-Extensions: permessage-deflate"))
        _ = try? channel.finish()
    }

    @Test func tooManyHeadersIsRefused() throws {
        let channel = try makeChannel()
        let extra = (0..<100).map { "X-Filler-\($0): x\r\n" }.joined()
        try channel.writeInbound(request("/echo", extra: extra))
        #expect(try output(channel).hasPrefix("HTTP/1.1 431"))
    }

    /// The responder is async: its answer completes a promise from another thread, which only a
    /// thread-safe test loop allows (an EmbeddedEventLoop reports that as API misuse).
    @Test func plainRequestsGoToTheResponder() async throws {
        let channel = NIOAsyncTestingChannel()
        try await channel.eventLoop.submit {
            try WebSocketServer.installHTTPHandlers(
                on: channel, configuration: WebSocketServerConfiguration(), router: EchoRouter(),
                responder: HealthResponder(), registry: ConnectionRegistry(), logger: Logger(label: "test"))
        }.get()
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).get()
        try await channel.writeInbound(ByteBuffer(string: "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"))
        var response = ""
        // The head and the body may be separate writes; each wait is bounded by the suite's limit.
        while !response.contains("ok:/healthz") {
            var chunk = try await channel.waitForOutboundWrite(as: ByteBuffer.self)
            response += chunk.readString(length: chunk.readableBytes) ?? ""
        }
        #expect(response.hasPrefix("HTTP/1.1 200 OK"))
        #expect(response.hasSuffix("ok:/healthz"))
        _ = try? await channel.finish()
    }
}
