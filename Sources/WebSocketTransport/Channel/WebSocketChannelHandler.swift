import Logging
import NIOCore
import WebSocket

/// Runs a ``WebSocketConnection`` on a channel: feeds it the bytes read, hands messages to the
/// ``WebSocketEndpoint``, writes what it produces, pings idle peers, enforces the close timeout
/// and applies the back-pressure policy. Installed after the opening handshake.
public final class WebSocketChannelHandler: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = ByteBuffer
    public typealias OutboundIn = ByteBuffer
    public typealias OutboundOut = ByteBuffer

    private var connection: WebSocketConnection
    private let endpoint: any WebSocketEndpoint
    private let timeouts: WebSocketTimeouts
    private let backpressure: WebSocketBackpressure
    /// The upgrade request, until the socket that carries it is made.
    private var request: UpgradeRequest?
    private let subprotocol: String?
    private let id: UInt64
    private let logger: Logger
    private let statistics: WebSocketStatistics?

    private var context: ChannelHandlerContext?
    private var socket: WebSocketSocket?
    private var inRead = false
    /// A ``LoopOutbox`` is writing to this connection among others; it flushes at the end.
    private var deferringFlush = false
    private var needsFlush = false
    /// Starts true: the opening handshake counts as traffic, so a new connection gets the same
    /// 2–3 ping intervals before an idle close as one that just spoke, and is never pinged at
    /// the wheel's first tick (which may come right after the upgrade, before `welcome`).
    private var receivedSinceTick = true
    private var pingOutstanding = false
    private var keepalive: KeepaliveWheel?
    private var closeTimer: Scheduled<Void>?
    private var queuedWhileUnwritable = 0
    private var readPending = false
    private var closeNotified = false
    private var discardingInput = false
    /// The channel's writability, as of its last `channelWritabilityChanged` (NIO fires that
    /// event synchronously when a write crosses the high watermark): reading this flag is
    /// cheaper than asking the channel for every frame and every read.
    private var channelIsWritable = true
    /// The server's connection counts, for ``WebSocketSocket/authenticate(as:limit:)``; nil on
    /// the client side.
    var limiter: ConnectionLimiter?
    /// The socket channel's `maxMessagesPerRead`, set by the server: on open the handler trims
    /// NIO's receive-buffer pool to one buffer (nil: leave it, e.g. on a channel without that option).
    var receivePoolReads: UInt?

    /// Creates the handler for a connection whose handshake is done.
    public init(
        connection: WebSocketConnection,
        endpoint: any WebSocketEndpoint,
        id: UInt64,
        request: HandshakeRequest? = nil,
        subprotocol: String? = nil,
        timeouts: WebSocketTimeouts = .default,
        backpressure: WebSocketBackpressure = .default,
        statistics: WebSocketStatistics? = nil,
        logger: Logger
    ) {
        self.connection = connection
        self.endpoint = endpoint
        self.id = id
        self.request = request.map(UpgradeRequest.init)
        self.subprotocol = subprotocol
        self.timeouts = timeouts
        self.backpressure = backpressure
        self.statistics = statistics
        // No per-connection metadata on the logger: that would allocate for every connection.
        // The connection id goes into each (rare) log call instead.
        self.logger = logger
    }

    /// The application handle, once the handler is in a pipeline.
    var currentSocket: WebSocketSocket? { socket }

    // MARK: Lifecycle

    public func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let socket = WebSocketSocket(
            id: id, eventLoop: context.eventLoop, request: request, subprotocol: subprotocol,
            compression: connection.compression, remoteAddress: context.channel.remoteAddress, handler: self,
            statistics: statistics, limiter: limiter)
        self.socket = socket
        request = nil
        channelIsWritable = context.channel.isWritable
        if let reads = receivePoolReads { Self.trimReceivePool(context.channel, readsPerEvent: reads) }
        _ = context.channel.setOption(ChannelOptions.writeBufferWaterMark,
                                      value: .init(low: backpressure.lowWatermark, high: backpressure.highWatermark))
        let wheel = KeepaliveWheel.on(context.eventLoop, interval: timeouts.pingInterval)
        wheel.register(self)
        keepalive = wheel
        if context.channel.isActive {
            endpoint.webSocketDidOpen(socket)
        }
        // The request's headers (a bearer token among them) are not kept for the connection's life.
        socket.releaseRequest()
    }

    /// An upgrade request longer than the first read leaves NIO's receive-buffer pool holding a
    /// second buffer, kept for the connection's life: dropping the pool to one buffer and back
    /// (growing reserves, never allocates) frees it, about half a KiB per idle connection.
    private static func trimReceivePool(_ channel: any Channel, readsPerEvent: UInt) {
        guard readsPerEvent > 1, let options = channel.syncOptions else { return }
        try? options.setOption(ChannelOptions.maxMessagesPerRead, value: 1)
        try? options.setOption(ChannelOptions.maxMessagesPerRead, value: readsPerEvent)
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        tearDown(code: nil, reason: "")
        self.context = nil
    }

    public func channelInactive(context: ChannelHandlerContext) {
        tearDown(code: nil, reason: "connection lost")
        context.fireChannelInactive()
    }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let request = event as? WebSocketCloseRequest {
            close(code: request.code, reason: request.reason)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("channel error", metadata: ["conn": "\(id)", "error": "\(error)"])
        context.close(promise: nil)
    }

    private func tearDown(code: WebSocketCloseCode?, reason: String) {
        keepalive?.unregister(self)
        keepalive = nil
        closeTimer?.cancel()
        closeTimer = nil
        notifyClosed(code: code, reason: reason)
        socket?.detach()
    }

    private func notifyClosed(code: WebSocketCloseCode?, reason: String) {
        guard !closeNotified, let socket else { return }
        closeNotified = true
        endpoint.webSocketDidClose(socket, code: code, reason: reason)
    }

    // MARK: Inbound

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if discardingInput { return }
        var bytes = unwrapInboundIn(data)
        receivedSinceTick = true
        pingOutstanding = false
        inRead = true
        connection.receive(&bytes)
        while let event = connection.nextEvent() {
            // Control replies (pongs) produced while parsing go out before anything the endpoint
            // writes in answer to this event, so they keep the order the peer sent. The
            // connection produces output only in the call that returns a ping, close or failure
            // event, so a data message (the hot path) skips the check; the call after the loop
            // catches anything else.
            switch event {
            case .text, .binary: break
            default: writePendingOutput()
            }
            handle(event, context: context)
            if self.context == nil { break }
        }
        writePendingOutput()
    }

    public func channelReadComplete(context: ChannelHandlerContext) {
        inRead = false
        if needsFlush {
            needsFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    private func handle(_ event: WebSocketEvent, context: ChannelHandlerContext) {
        switch event {
        case .text(let buffer):
            if let socket { endpoint.webSocket(socket, didReceive: .text(buffer)) }
        case .binary(let buffer):
            if let socket { endpoint.webSocket(socket, didReceive: .binary(buffer)) }
        case .ping, .pong:
            break
        case .closed(let code, let reason, _):
            notifyClosed(code: code, reason: reason)
            writePendingOutput()
            if connection.shouldCloseTransport {
                closeTransportAfterFlush()
            } else {
                scheduleCloseTimer()
            }
        case .failed(let error):
            logger.debug("protocol violation, closing", metadata: ["conn": "\(id)", "code": "\(error.closeCode.rawValue)", "reason": "\(error.reason)"])
            notifyClosed(code: error.closeCode, reason: error.reason)
            writePendingOutput()
            lingerAfterFailure()
        }
    }

    // MARK: Outbound

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        context.write(data, promise: promise)
    }

    public func read(context: ChannelHandlerContext) {
        if channelIsWritable || discardingInput {
            context.read()
        } else {
            readPending = true
        }
    }

    public func channelWritabilityChanged(context: ChannelHandlerContext) {
        channelIsWritable = context.channel.isWritable
        if channelIsWritable {
            queuedWhileUnwritable = 0
            if readPending {
                readPending = false
                context.read()
            }
        }
        context.fireChannelWritabilityChanged()
    }

    func send(_ message: WebSocketMessage) {
        let frame: ByteBuffer?
        switch message {
        case .text(let payload): frame = connection.send(.text, payload: payload)
        case .binary(let payload): frame = connection.send(.binary, payload: payload)
        }
        if let frame { writeFrame(frame) } else { statistics?.noteDroppedFrame() }
    }

    func sendPrepared(_ frame: PreparedFrame) {
        guard connection.closeState == .open else {
            statistics?.noteDroppedFrame()
            return
        }
        // Only a recipient that negotiated deflate (15-bit window) asks for the compressed
        // variant: asking compresses the broadcast (once, for all such recipients).
        if let parameters = connection.compression, parameters.serverMaxWindowBits == 15,
           let compressed = frame.compressedBytes {
            writeFrame(compressed)
        } else {
            writeFrame(frame.bytes)
        }
    }

    func close(code: WebSocketCloseCode, reason: String) {
        guard let frame = connection.close(code: code, reason: reason) else { return }
        writeFrame(frame)
        scheduleCloseTimer()
    }

    private func writePendingOutput() {
        if let output = connection.takePendingOutput() { writeFrame(output) }
    }

    private func writeFrame(_ frame: ByteBuffer) {
        guard let context else { return }
        if !channelIsWritable {
            queuedWhileUnwritable += frame.readableBytes
            if queuedWhileUnwritable > backpressure.maxQueuedBytes {
                disconnectSlowConsumer(context: context)
                return
            }
        }
        context.write(wrapOutboundOut(frame), promise: nil)
        if inRead || deferringFlush {
            needsFlush = true
        } else {
            context.flush()
        }
    }

    /// Holds back flushes until ``endDeferredFlush()``; false when already holding them.
    func beginDeferredFlush() -> Bool {
        if deferringFlush { return false }
        deferringFlush = true
        return true
    }

    /// Flushes what was written since ``beginDeferredFlush()`` (unless a read in progress
    /// flushes it when it completes).
    func endDeferredFlush() {
        deferringFlush = false
        guard needsFlush, !inRead, let context else { return }
        needsFlush = false
        context.flush()
    }

    private func disconnectSlowConsumer(context: ChannelHandlerContext) {
        statistics?.noteSlowConsumer()
        logger.info("slow consumer disconnected", metadata: ["conn": "\(id)", "queued": "\(queuedWhileUnwritable)"])
        if let frame = connection.close(code: .policyViolation, reason: "slow consumer") {
            context.write(wrapOutboundOut(frame), promise: nil)
            context.flush()
        }
        notifyClosed(code: .policyViolation, reason: "slow consumer")
        context.close(promise: nil)
    }

    private func closeTransportAfterFlush() {
        guard let context else { return }
        let channel = context.channel
        let promise = context.eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
        context.writeAndFlush(wrapOutboundOut(ByteBuffer()), promise: promise)
    }

    /// After a protocol failure the peer may still be writing (a 4 MiB frame over the size limit,
    /// say). Closing at once with unread bytes makes the kernel send RST, and the peer may lose
    /// our close frame. So: flush the close frame, shut the write side, discard whatever still
    /// arrives, and close fully on the peer's EOF or after the close timeout.
    private func lingerAfterFailure() {
        guard let context else { return }
        discardingInput = true
        let channel = context.channel
        let flushed = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(ByteBuffer()), promise: flushed)
        flushed.futureResult.whenComplete { result in
            guard case .success = result else {
                channel.close(promise: nil)
                return
            }
            channel.close(mode: .output).whenFailure { _ in channel.close(promise: nil) }
        }
        scheduleCloseTimer()
    }

    private func scheduleCloseTimer() {
        guard closeTimer == nil, let context else { return }
        let channel = context.channel
        closeTimer = context.eventLoop.scheduleTask(in: timeouts.closeTimeout) {
            channel.close(promise: nil)
        }
    }

    /// Called by the loop's ``KeepaliveWheel`` once per ping interval.
    func keepaliveTick() {
        if receivedSinceTick {
            receivedSinceTick = false
            return
        }
        if pingOutstanding {
            logger.debug("idle timeout, closing", metadata: ["conn": "\(id)"])
            if let frame = connection.close(code: .goingAway, reason: "idle timeout") { writeFrame(frame) }
            notifyClosed(code: .goingAway, reason: "idle timeout")
            context?.close(promise: nil)
            return
        }
        if let ping = connection.ping() {
            pingOutstanding = true
            writeFrame(ping)
        }
    }
}
