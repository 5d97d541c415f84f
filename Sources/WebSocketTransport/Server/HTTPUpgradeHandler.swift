import Logging
import NIOCore
import NIOHTTP1
import WebSocket

/// The first handler of every server connection: reads HTTP/1.1 requests (parsed by NIOHTTP1),
/// answers plain requests through the ``HTTPResponder``, and decides WebSocket upgrades with our
/// own RFC 6455 handshake code. On an accepted upgrade it writes the 101 response, removes the
/// HTTP handlers and installs a ``WebSocketChannelHandler``; leftover bytes flow to it.
final class HTTPUpgradeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        case idle
        case receiving(HTTPRequestHead, ByteBuffer, isUpgrade: Bool)
        case responding
        case upgraded
        case discarding
    }

    private let configuration: WebSocketServerConfiguration
    private let router: any WebSocketRouter
    private let responder: any HTTPResponder
    private let registry: ConnectionRegistry
    private let logger: Logger
    private let decoderName: String
    private let encoderName: String
    private var state = State.idle

    init(
        configuration: WebSocketServerConfiguration,
        router: any WebSocketRouter,
        responder: any HTTPResponder,
        registry: ConnectionRegistry,
        logger: Logger,
        decoderName: String,
        encoderName: String
    ) {
        self.configuration = configuration
        self.router = router
        self.responder = responder
        self.registry = registry
        self.logger = logger
        self.decoderName = decoderName
        self.encoderName = encoderName
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (unwrapInboundIn(data), state) {
        case (.head(let head), .idle):
            let isUpgrade = head.headers.contains(name: "upgrade") || head.headers.contains(name: "sec-websocket-key")
            state = .receiving(head, ByteBuffer(), isUpgrade: isUpgrade)
        case (.body(var chunk), .receiving(let head, var body, let isUpgrade)):
            if body.readableBytes + chunk.readableBytes > configuration.maxHTTPBodySize {
                state = .discarding
                respond(context: context, HTTPResponse.text(.payloadTooLarge, "request body too large\n"), keepAlive: false)
                return
            }
            body.writeBuffer(&chunk)
            state = .receiving(head, body, isUpgrade: isUpgrade)
        case (.end, .receiving(let head, let body, let isUpgrade)):
            state = .responding
            if isUpgrade {
                upgrade(context: context, head: head)
            } else {
                serve(context: context, request: HTTPRequest(head: head, body: body, remoteAddress: context.channel.remoteAddress))
            }
        case (_, .discarding), (_, .upgraded):
            break
        default:
            // A request part arrived out of order (e.g. pipelined while we respond): refuse.
            state = .discarding
            respond(context: context, .text(.badRequest, "unexpected request data\n"), keepAlive: false)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError {
            logger.debug("bad HTTP request", metadata: ["error": "\(error)"])
            if case .idle = state {
                state = .discarding
                respond(context: context, .text(.badRequest, "malformed HTTP request\n"), keepAlive: false)
                return
            }
        }
        context.close(promise: nil)
    }

    // MARK: Plain HTTP

    private func serve(context: ChannelHandlerContext, request: HTTPRequest) {
        let keepAlive = request.head.isKeepAlive
        let responder = self.responder
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.makeFutureWithTask {
            await responder.respond(to: request)
        }.whenSuccess { response in
            let (handler, context) = bound.value
            handler.respond(context: context, response, keepAlive: keepAlive)
        }
    }

    private func respond(context: ChannelHandlerContext, _ response: HTTPResponse, keepAlive: Bool) {
        var headers = response.headers
        headers.replaceOrAdd(name: "Content-Length", value: String(response.body.readableBytes))
        headers.replaceOrAdd(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        let head = HTTPResponseHead(version: .http1_1, status: response.status, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if response.body.readableBytes > 0 {
            context.write(wrapOutboundOut(.body(.byteBuffer(response.body))), promise: nil)
        }
        let channel = context.channel
        if keepAlive {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            if case .responding = state { state = .idle }
        } else {
            let promise = context.eventLoop.makePromise(of: Void.self)
            promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: promise)
        }
    }

    // MARK: WebSocket upgrade

    private func upgrade(context: ChannelHandlerContext, head: HTTPRequestHead) {
        let request = HandshakeRequest(
            method: head.method.rawValue,
            target: head.uri,
            versionMajor: head.version.major,
            versionMinor: head.version.minor,
            headers: head.headers.map { (name: $0.name, value: $0.value) }
        )
        let accepted: AcceptedUpgrade
        switch ServerHandshake.evaluate(request, configuration: configuration.handshake) {
        case .failure(let rejection):
            logger.debug("handshake refused", metadata: ["status": "\(rejection.status)", "reason": "\(rejection.reason)"])
            var headers = HTTPHeaders()
            for header in rejection.headers { headers.add(name: header.name, value: header.value) }
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            respond(context: context, HTTPResponse(status: .init(statusCode: rejection.status), headers: headers,
                                                   body: ByteBuffer(string: rejection.reason + "\n")), keepAlive: false)
            return
        case .success(let upgrade):
            accepted = upgrade
        }
        switch router.route(accepted, remoteAddress: context.channel.remoteAddress) {
        case .reject(let status, let reason):
            respond(context: context, .text(status, reason + "\n"), keepAlive: false)
        case .accept(let endpoint, let options):
            let compression = options.allowsCompression && configuration.compression.isEnabled
                ? PerMessageDeflateNegotiation.negotiate(offers: accepted.extensionOffers, configuration: configuration.compression)
                : nil
            var headers = HTTPHeaders()
            for header in accepted.responseHeaders(extensions: compression?.headerValue) {
                headers.add(name: header.name, value: header.value)
            }
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .switchingProtocols, headers: headers))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            state = .upgraded
            var connection = WebSocketConnection(role: .server, configuration: options.configuration, compression: compression,
                                                 allocator: context.channel.allocator)
            connection.compressionSettings = configuration.compression
            let id = registry.nextID()
            let handler = WebSocketChannelHandler(
                connection: connection, endpoint: endpoint, id: id, request: request,
                subprotocol: accepted.subprotocol, timeouts: options.timeouts, backpressure: options.backpressure,
                statistics: registry.statistics, logger: logger)
            let pipeline = context.pipeline.syncOperations
            let channel = context.channel
            do {
                // The response encoder goes first: the endpoint may write (even close) from
                // `webSocketDidOpen`, which runs as the handler is added, and those frames must
                // reach the socket as bytes, not pass through an HTTP encoder.
                if let encoder = try? pipeline.context(name: encoderName) {
                    pipeline.removeHandler(context: encoder, promise: nil)
                }
                try pipeline.addHandler(handler)
                pipeline.removeHandler(context: context, promise: nil)
                if let decoder = try? pipeline.context(name: decoderName) {
                    pipeline.removeHandler(context: decoder, promise: nil)
                }
                registry.register(id: id, channel: channel)
                // The decoder's removal (which forwards bytes that followed the request) runs in a
                // later loop tick; a read-complete after it makes the WebSocket handler flush.
                channel.eventLoop.execute { channel.pipeline.fireChannelReadComplete() }
            } catch {
                logger.error("could not install the WebSocket handler", metadata: ["error": "\(error)"])
                context.close(promise: nil)
            }
        }
    }
}
