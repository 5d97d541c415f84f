import Logging
import NIOCore
import NIOHTTP1
import WebSocket

/// Sends the opening handshake, validates the 101 response with our handshake code, then swaps
/// the HTTP handlers for a client-role ``WebSocketChannelHandler``.
final class ClientUpgradeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let handshake: ClientHandshake
    private let settings: WebSocketClientConfiguration
    private let makeEndpoint: @Sendable () -> any WebSocketEndpoint
    private let promise: EventLoopPromise<WebSocketSocket>
    private let logger: Logger
    private let id: UInt64
    private var response: HTTPResponseHead?
    private var body = ByteBuffer()
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
        var headers = HTTPHeaders()
        for header in handshake.requestHeaders { headers.add(name: header.name, value: header.value) }
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: handshake.target, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            response = head
        case .body(var chunk):
            if body.readableBytes < 4096 { body.writeBuffer(&chunk) }
        case .end:
            guard let response else { return fail(context, .connectionClosed) }
            finish(context: context, response: response)
        }
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

    private func finish(context: ChannelHandlerContext, response: HTTPResponseHead) {
        let status = Int(response.status.code)
        guard status == 101 else {
            return fail(context, .upgradeRefused(status: status, body: String(buffer: body)))
        }
        let headers = response.headers.map { (name: $0.name, value: $0.value) }
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
            for name in ["ws-client-http-encoder"] {
                if let other = try? pipeline.context(name: name) { pipeline.removeHandler(context: other, promise: nil) }
            }
            done = true
            pipeline.removeHandler(context: context, promise: nil)
            if let decoder = try? pipeline.context(name: "ws-client-http-decoder") {
                pipeline.removeHandler(context: decoder, promise: nil)
            }
            let channel = context.channel
            channel.eventLoop.execute { channel.pipeline.fireChannelReadComplete() }
            promise.succeed(socket)
        } catch {
            fail(context, .connectionClosed)
        }
    }
}
