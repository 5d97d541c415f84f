import Logging
import NIOCore
import Foundation
import WebSocket

/// Sends the opening handshake, reads the HTTP response head itself (bounded), validates the
/// 101 with our handshake code, then hands the connection to a client-role
/// ``WebSocketChannelHandler``, passing on any bytes that followed the head.
///
/// No NIOHTTP1 handlers sit on the client path: NIO's response decoder observes outbound
/// writes, and a frame written while it is being removed (a close echo for a close that came in
/// the same packet as the 101) would reach it and trap.
final class ClientUpgradeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Largest response head accepted.
    static let maxHeadBytes = 16 * 1024

    private let handshake: ClientHandshake
    private let settings: WebSocketClientConfiguration
    private let makeEndpoint: @Sendable () -> any WebSocketEndpoint
    private let promise: EventLoopPromise<WebSocketSocket>
    private let logger: Logger
    private let id: UInt64
    private var received = ByteBuffer()
    private var done = false

    init(handshake: ClientHandshake, settings: WebSocketClientConfiguration, id: UInt64,
         makeEndpoint: @escaping @Sendable () -> any WebSocketEndpoint,
         promise: EventLoopPromise<WebSocketSocket>, logger: Logger) {
        self.handshake = handshake
        self.settings = settings
        self.id = id
        self.makeEndpoint = makeEndpoint
        self.promise = promise
        self.logger = logger
    }

    func channelActive(context: ChannelHandlerContext) {
        var request = "GET \(handshake.target) HTTP/1.1\r\n"
        for header in handshake.requestHeaders { request += "\(header.name): \(header.value)\r\n" }
        request += "\r\n"
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: request)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return }
        var chunk = unwrapInboundIn(data)
        received.writeBuffer(&chunk)
        let view = received.readableBytesView
        guard let headEnd = Self.endOfHead(view) else {
            if received.readableBytes > Self.maxHeadBytes { fail(context, .connectionClosed) }
            return
        }
        guard let headText = received.readString(length: headEnd - view.startIndex) else { return fail(context, .connectionClosed) }
        received.moveReaderIndex(forwardBy: 4)
        guard let head = Self.parseHead(headText) else { return fail(context, .connectionClosed) }
        finish(context: context, status: head.status, headers: head.headers, leftover: received)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(context, .connectionClosed)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !done {
            done = true
            promise.fail(error)
        }
        context.close(promise: nil)
    }

    private func fail(_ context: ChannelHandlerContext, _ error: WebSocketClientError) {
        guard !done else { return }
        done = true
        promise.fail(error)
        context.close(promise: nil)
    }

    /// Index of the `\r\n\r\n` ending the head, if it arrived.
    private static func endOfHead(_ bytes: ByteBufferView) -> Int? {
        guard bytes.count >= 4 else { return nil }
        var index = bytes.startIndex
        let last = bytes.endIndex - 4
        while index <= last {
            if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 { return index }
            index += 1
        }
        return nil
    }

    /// Status code and header fields of `HTTP/1.1 101 ...\r\nName: value\r\n...`.
    private static func parseHead(_ text: String) -> (status: Int, headers: [(name: String, value: String)])? {
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/1.") else { return nil }
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers.append((name, value))
            if headers.count > 100 { return nil }
        }
        return (status, headers)
    }

    private func finish(context: ChannelHandlerContext, status: Int, headers: [(name: String, value: String)], leftover: ByteBuffer) {
        guard status == 101 else {
            return fail(context, .upgradeRefused(status: status, body: String(buffer: leftover.getSlice(at: leftover.readerIndex, length: min(4096, leftover.readableBytes)) ?? ByteBuffer())))
        }
        let result: ClientHandshakeResult
        do {
            result = try handshake.validate(status: status, headers: headers)
        } catch {
            return fail(context, .invalidHandshake(error))
        }
        var compression: PerMessageDeflateParameters?
        if settings.compression.isEnabled {
            do {
                compression = try PerMessageDeflateNegotiation.acceptResponse(
                    headerValues: result.extensionHeaderValues, configuration: settings.compression)
            } catch {
                return fail(context, .invalidExtension(error))
            }
        }
        var connection = WebSocketConnection(role: .client, configuration: settings.configuration,
                                             compression: compression, allocator: context.channel.allocator)
        connection.compressionSettings = settings.compression
        let handler = WebSocketChannelHandler(
            connection: connection, endpoint: makeEndpoint(), id: id, request: nil,
            subprotocol: result.subprotocol, timeouts: settings.timeouts, backpressure: settings.backpressure, logger: logger)
        let pipeline = context.pipeline.syncOperations
        do {
            try pipeline.addHandler(handler)
            guard let socket = handler.currentSocket else { throw WebSocketClientError.connectionClosed }
            done = true
            promise.succeed(socket)
            if leftover.readableBytes > 0 {
                context.fireChannelRead(wrapInboundOut(leftover))
                context.fireChannelReadComplete()
            }
            pipeline.removeHandler(context: context, promise: nil)
        } catch {
            fail(context, .connectionClosed)
        }
    }
}
