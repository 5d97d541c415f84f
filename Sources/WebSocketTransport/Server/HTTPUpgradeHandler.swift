import Logging
import NIOCore
import NIOHTTP1
import WebSocket

/// The first handler of every server connection: reads HTTP/1.1 requests (parsed by NIOHTTP1),
/// answers plain requests through the ``HTTPResponder``, and decides WebSocket upgrades with our
/// own RFC 6455 handshake code. On an accepted upgrade it writes the 101 response, removes the
/// HTTP handlers and installs a ``WebSocketChannelHandler``; leftover bytes flow to it.
///
/// It also keeps the HTTP phase's deadlines (``HTTPDeadlines``; an ``HTTPInputWatcher`` in front
/// of the decoder reports the raw bytes), each request's body limit (the responder's route
/// decision) and, for connections from a trusted proxy, the client address of each request.
final class HTTPUpgradeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        case idle
        case receiving(HTTPRequestHead, ByteBuffer, isUpgrade: Bool, bodyLimit: Int)
        case responding
        case upgraded
        case discarding
    }

    /// How long a connection whose last response said `Connection: close` (an error such as 408
    /// or 413, or a client that asked for it) stays half-open to read and drop what the client is
    /// still sending, so that the kernel does not answer that with a reset which could destroy
    /// the response before the client reads it. Closed earlier at the client's EOF.
    static let closeLinger = TimeAmount.seconds(2)

    private let configuration: WebSocketServerConfiguration
    private let router: any WebSocketRouter
    private let responder: any HTTPResponder
    private let registry: ConnectionRegistry
    private let limiter: ConnectionLimiter?
    private let id: UInt64
    private let logger: Logger
    private let decoderName: String
    private let encoderName: String
    private let watcherName: String
    private var state = State.idle
    private var context: ChannelHandlerContext?
    private var deadlines: HTTPDeadlines?
    private var timer: Scheduled<Void>?
    /// The socket channel's `maxMessagesPerRead`, handed to the WebSocket handler (nil: none).
    var readsPerEvent: UInt?
    /// Moves upgraded connections between loops, handed to the WebSocket handler (nil: they stay).
    var mover: ConnectionMover?

    init(
        configuration: WebSocketServerConfiguration,
        router: any WebSocketRouter,
        responder: any HTTPResponder,
        registry: ConnectionRegistry,
        limiter: ConnectionLimiter?,
        id: UInt64,
        logger: Logger,
        decoderName: String,
        encoderName: String,
        watcherName: String
    ) {
        self.configuration = configuration
        self.router = router
        self.responder = responder
        self.registry = registry
        self.limiter = limiter
        self.id = id
        self.logger = logger
        self.decoderName = decoderName
        self.encoderName = encoderName
        self.watcherName = watcherName
    }

    // MARK: Lifecycle and deadlines

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let deadlines = HTTPDeadlines(headTimeout: configuration.connectionPolicy.requestHeadTimeout, bodyTimeout: configuration.connectionPolicy.requestBodyTimeout,
                                      idleTimeout: configuration.connectionPolicy.keepAliveTimeout, now: context.eventLoop.now)
        self.deadlines = deadlines
        apply(deadlines.initialAction)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        self.context = nil
    }

    /// Raw bytes arrived (reported by the ``HTTPInputWatcher`` before the decoder sees them).
    func bytesArrived() {
        guard let context else { return }
        apply(deadlines?.bytesReceived(now: context.eventLoop.now))
    }

    private func apply(_ action: HTTPDeadlines.TimerAction?) {
        switch action {
        case .schedule(let deadline):
            timer?.cancel()
            guard let context else { return }
            let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
            timer = context.eventLoop.scheduleTask(deadline: deadline) { bound.value.deadlinePassed() }
        case .cancel:
            timer?.cancel()
            timer = nil
        case .keep, nil:
            break
        }
    }

    private func deadlinePassed() {
        timer = nil
        guard let context, let expiry = deadlines?.expire(now: context.eventLoop.now) else { return }
        switch expiry {
        case .requestTimeout(let phase):
            registry.statistics.noteTimeout(phase)
            logger.debug("HTTP deadline passed; answering 408", metadata: ["conn": "\(id)", "phase": "\(phase.rawValue)"])
            state = .discarding
            respond(context: context, .text(.requestTimeout, "request timed out\n"), keepAlive: false)
        case .close(let phase):
            registry.statistics.noteTimeout(phase)
            logger.debug("HTTP deadline passed; closing", metadata: ["conn": "\(id)", "phase": "\(phase.rawValue)"])
            state = .discarding
            context.close(promise: nil)
        }
    }

    // MARK: Requests

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (unwrapInboundIn(data), state) {
        case (.head(let head), .idle):
            apply(deadlines?.headReceived(now: context.eventLoop.now))
            if let refusal = attributeClientAddress(of: head, context: context) {
                logger.debug("connection refused", metadata: ["conn": "\(id)", "reason": "\(refusal.rawValue)"])
                return refuse(context: context, .text(.tooManyRequests, "too many connections from your address\n"))
            }
            let isUpgrade = head.headers.contains(name: "upgrade") || head.headers.contains(name: "sec-websocket-key")
            let serverLimit = configuration.maxHTTPBodySize
            let bodyLimit = isUpgrade ? serverLimit : min(serverLimit, responder.bodyLimit(for: head) ?? serverLimit)
            if let length = head.headers.first(name: "content-length").flatMap(Int.init), length > bodyLimit {
                return refuse(context: context, Self.tooLarge(bodyLimit))
            }
            state = .receiving(head, ByteBuffer(), isUpgrade: isUpgrade, bodyLimit: bodyLimit)
        case (.body(var chunk), .receiving(let head, var body, let isUpgrade, let bodyLimit)):
            if body.readableBytes + chunk.readableBytes > bodyLimit {
                return refuse(context: context, Self.tooLarge(bodyLimit))
            }
            body.writeBuffer(&chunk)
            state = .receiving(head, body, isUpgrade: isUpgrade, bodyLimit: bodyLimit)
        case (.end, .receiving(let head, let body, let isUpgrade, _)):
            apply(deadlines?.requestReceived())
            state = .responding
            if isUpgrade {
                upgrade(context: context, head: head)
            } else {
                let peer = context.channel.remoteAddress
                serve(context: context, request: HTTPRequest(head: head, body: body, remoteAddress: peer,
                                                             clientAddress: limiter?.clientAddress(peer: peer, head: head) ?? peer?.ipAddress))
            }
        case (_, .discarding), (_, .upgraded):
            break
        default:
            // A request part arrived out of order (e.g. pipelined while we respond): refuse.
            refuse(context: context, .text(.badRequest, "unexpected request data\n"))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError {
            logger.debug("bad HTTP request", metadata: ["error": "\(error)"])
            if case .idle = state {
                refuse(context: context, .text(.badRequest, "malformed HTTP request\n"))
                return
            }
        }
        context.close(promise: nil)
    }

    private static func tooLarge(_ limit: Int) -> HTTPResponse {
        .text(.payloadTooLarge, "request body too large (this route accepts at most \(limit) bytes)\n")
    }

    /// For a connection from a trusted proxy, counts it against the client address of `head`
    /// (the last `X-Forwarded-For` hop); other connections were counted at accept.
    private func attributeClientAddress(of head: HTTPRequestHead, context: ChannelHandlerContext) -> ConnectionRefusal? {
        guard let limiter, limiter.isTrustedProxy(context.channel.remoteAddress),
              let address = limiter.clientAddress(peer: context.channel.remoteAddress, head: head) else { return nil }
        return limiter.attribute(id, to: address)
    }

    /// Answers `response` and ends the connection, discarding the rest of the request.
    private func refuse(context: ChannelHandlerContext, _ response: HTTPResponse) {
        state = .discarding
        respond(context: context, response, keepAlive: false)
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
            if case .responding = state {
                state = .idle
                apply(deadlines?.responseSent(now: context.eventLoop.now))
            }
        } else {
            if case .responding = state { state = .discarding }
            apply(deadlines?.finish())
            // Shut the write side, drop what still arrives, and close on the client's EOF or
            // after a short linger: closing with unread input would make the kernel send a reset.
            let promise = context.eventLoop.makePromise(of: Void.self)
            promise.futureResult.whenComplete { result in
                guard case .success = result else { return channel.close(promise: nil) }
                channel.close(mode: .output).whenFailure { _ in channel.close(promise: nil) }
                channel.eventLoop.scheduleTask(in: Self.closeLinger) { channel.close(promise: nil) }
            }
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
        let peer = context.channel.remoteAddress
        let client = limiter?.clientAddress(peer: peer, head: head) ?? peer?.ipAddress
        switch router.route(accepted, remoteAddress: peer, clientAddress: client) {
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
            apply(deadlines?.finish())
            if !options.awaitsAuthentication { limiter?.leaveUnauthenticated(id) }
            var connection = WebSocketConnection(role: .server, configuration: options.configuration, compression: compression,
                                                 allocator: context.channel.allocator)
            connection.compressionSettings = configuration.compression
            let handler = WebSocketChannelHandler(
                connection: connection, endpoint: endpoint, id: id, request: request,
                subprotocol: accepted.subprotocol, timeouts: options.timeouts, backpressure: options.backpressure,
                statistics: registry.statistics, logger: logger)
            handler.limiter = limiter
            handler.mover = mover
            handler.receivePoolReads = readsPerEvent
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
                if let watcher = try? pipeline.context(name: watcherName) {
                    pipeline.removeHandler(context: watcher, promise: nil)
                }
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
