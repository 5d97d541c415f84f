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
    /// Where the connection is in a move between loops (``move(to:mover:)``).
    private var placement = Placement.settled
    /// Frames written while the connection flushes before leaving its channel, in order; the
    /// arriving handler writes them first.
    private var carried: [ByteBuffer] = []
    /// Calls that reached a handler between channels, in order, not yet carried out: the
    /// arriving handler's own, or the leaving handler's last ones (``seal(_:)``).
    private var pendingCalls: [PendingCall] = []
    /// The arriving handler is in its new channel's pipeline.
    private var added = false
    /// The arriving handler has the leaving handler's last calls.
    private var sealed = false
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
    /// Moves the connection to another loop (server side); nil on the client side.
    var mover: ConnectionMover?
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

    /// The handler of a connection moving in from another loop, with its whole WebSocket state
    /// and the frames written meanwhile; it goes into the new channel's pipeline on `eventLoop`.
    private init(arrivingFrom leaving: WebSocketChannelHandler, carried: [ByteBuffer]) {
        self.connection = leaving.connection
        self.endpoint = leaving.endpoint
        self.id = leaving.id
        self.subprotocol = leaving.subprotocol
        self.timeouts = leaving.timeouts
        self.backpressure = leaving.backpressure
        self.statistics = leaving.statistics
        self.logger = leaving.logger
        self.limiter = leaving.limiter
        self.mover = leaving.mover
        self.socket = leaving.socket
        self.carried = carried
        self.placement = .arriving
    }

    /// The application handle, once the handler is in a pipeline.
    var currentSocket: WebSocketSocket? { socket }

    // MARK: Lifecycle

    public func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if placement == .arriving { return arrive(context: context) }
        let socket = WebSocketSocket(
            id: id, eventLoop: context.eventLoop, request: request, subprotocol: subprotocol,
            compression: connection.compression, remoteAddress: context.channel.remoteAddress, handler: self,
            statistics: statistics, limiter: limiter, mover: mover)
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
        // A connection that moved lives on in another channel: its close here is not the end.
        if placement == .gone { return }
        notifyClosed(code: code, reason: reason)
        socket?.detach(self)
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
        if placement == .gone || placement == .arriving { return pend(.message(message)) }
        let frame: ByteBuffer?
        switch message {
        case .text(let payload): frame = connection.send(.text, payload: payload)
        case .binary(let payload): frame = connection.send(.binary, payload: payload)
        }
        if let frame { writeFrame(frame) } else { statistics?.noteDroppedFrame() }
    }

    func sendPrepared(_ frame: PreparedFrame) {
        if placement == .gone || placement == .arriving { return pend(.frame(frame)) }
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
        if placement == .gone || placement == .arriving { return pend(.close(code, reason)) }
        guard let frame = connection.close(code: code, reason: reason) else { return }
        writeFrame(frame)
        scheduleCloseTimer()
    }

    private func writePendingOutput() {
        if let output = connection.takePendingOutput() { writeFrame(output) }
    }

    private func writeFrame(_ frame: ByteBuffer) {
        if placement == .leaving || placement == .arriving {
            carried.append(frame)
            return
        }
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

// MARK: Moving between loops

extension WebSocketChannelHandler {
    /// Where a connection is in a move from one event loop to another.
    enum Placement {
        /// In its channel, not moving.
        case settled
        /// Flushing before it leaves: reads are paused, frames written are carried along.
        case leaving
        /// Left: the connection lives in another channel; calls still arriving here are passed on
        /// through the socket, and this channel's close is not the connection's.
        case gone
        /// Made for the new channel, not yet in its pipeline: frames written are kept for it.
        case arriving
    }

    /// On the connection's loop: moves it to `target` (see ``WebSocketSocket/move(to:)``);
    /// succeeds with false when it stays.
    func move(to target: any EventLoop, mover: ConnectionMover) -> EventLoopFuture<Bool> {
        guard let context else { return target.makeSucceededFuture(false) }
        guard placement == .settled, isMovable(context) else { return context.eventLoop.makeSucceededFuture(false) }
        placement = .leaving
        let channel = context.channel
        try? channel.syncOptions?.setOption(ChannelOptions.autoRead, value: false)
        // Everything written so far reaches the kernel first; what is written from now on is
        // carried to the new channel.
        // A peer that does not read holds the flush: after ``moveFlushTimeout`` the connection
        // stays where it is (and reads again).
        let loop = context.eventLoop, this = NIOLoopBound(self, eventLoop: loop)
        let outcome = loop.makePromise(of: Bool.self)
        let timeout = loop.scheduleTask(in: Self.moveFlushTimeout) {
            guard this.value.placement == .leaving else { return }
            this.value.stay()
            outcome.succeed(false)
        }
        let flushed = loop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(ByteBuffer()), promise: flushed)
        flushed.futureResult.whenComplete { result in
            // After the timeout the connection is settled again, and the outcome given.
            guard this.value.placement == .leaving else { return }
            timeout.cancel()
            switch result {
            case .success: outcome.succeed(this.value.leave(to: target, mover: mover))
            case .failure:
                this.value.stay()
                outcome.succeed(false)
            }
        }
        return outcome.futureResult
    }

    /// How long a move waits for what was written before it to reach the kernel.
    static let moveFlushTimeout: TimeAmount = .seconds(1)

    /// A connection moves only while it is plainly open: not closing, not failing, not reading,
    /// not inside a batch of writes, with nothing queued behind a full socket.
    private func isMovable(_ context: ChannelHandlerContext) -> Bool {
        context.channel.isActive && connection.closeState == .open && !discardingInput && closeTimer == nil
            && channelIsWritable && !inRead && !deferringFlush && socket != nil
    }

    /// On the old loop, once everything written before the move is flushed: hands the
    /// descriptor, the WebSocket state and the carried frames to a channel on `target`, points
    /// the socket there, and lets go of this channel without touching the TCP connection.
    ///
    /// Order: the new handler is in its box on `target` before the socket points there, and it
    /// carries out nothing until it has this handler's last calls (those already queued for this
    /// loop when the socket moved), so every call keeps its place, whichever thread made it.
    private func leave(to target: any EventLoop, mover: ConnectionMover) -> Bool {
        guard placement == .leaving, let context, isMovable(context), let socket,
              let descriptor = mover.duplicateDescriptor(of: context.channel) else {
            stay()
            return false
        }
        // The new handler is in its box from the start: a call routed to `target` right after
        // the socket points there finds it (and it holds every call until it settles).
        let box = HandlerBox(WebSocketChannelHandler(arrivingFrom: self, carried: carried), eventLoop: target)
        carried = []
        placement = .gone
        keepalive?.unregister(self)
        keepalive = nil
        mover.adopt(descriptor, id: id, leaving: context.channel, on: target, box: box)
        socket.rebind(to: target, handler: box)
        // Calls queued for this loop before the socket moved still reach this handler, and wait
        // in `pendingCalls` for the new one: those in the loop's outbox, and, when this runs
        // inside the outbox's drain (a flush there completed the move's), the rest of its batch.
        // So the hand-over waits for a task of its own, after that drain.
        let loop = context.eventLoop, this = NIOLoopBound(self, eventLoop: loop)
        loop.execute { this.value.handOver(to: box, on: target, from: loop) }
        context.close(promise: nil)
        return true
    }

    /// On the old loop, after the move: gives the new handler the calls that reached this one
    /// since, in order; later ones (none are expected) are passed on through the socket.
    private func handOver(to box: HandlerBox, on target: any EventLoop, from loop: any EventLoop) {
        LoopOutbox.on(loop).drainNow()
        let last = pendingCalls
        pendingCalls = []
        sealed = true
        target.execute { box.value?.seal(last) }
    }

    /// The move did not happen: writes what was carried, reads again.
    private func stay() {
        guard placement == .leaving else { return }
        placement = .settled
        let frames = carried
        carried = []
        for frame in frames { writeFrame(frame) }
        if let context {
            context.flush()
            try? context.channel.syncOptions?.setOption(ChannelOptions.autoRead, value: true)
        }
    }

    /// A call that reached a handler between channels (see ``pendingCalls``).
    private func pend(_ call: PendingCall) {
        if placement == .gone, sealed, let socket {
            // Too late for the new handler's start (it has this handler's last calls): pass it on.
            switch call {
            case .frame(let frame): socket.send(frame)
            case .message(let message): socket.send(message)
            case .close(let code, let reason): socket.close(code: code, reason: reason)
            }
            return
        }
        pendingCalls.append(call)
    }

    /// In the new channel, on the new loop: the handler is in the pipeline.
    private func arrive(context: ChannelHandlerContext) {
        added = true
        channelIsWritable = context.channel.isWritable
        _ = context.channel.setOption(ChannelOptions.writeBufferWaterMark,
                                      value: .init(low: backpressure.lowWatermark, high: backpressure.highWatermark))
        if sealed { settle() }
    }

    /// On the new loop: the leaving handler's last calls, which go before this handler's own.
    func seal(_ last: [PendingCall]) {
        guard placement == .arriving else { return }
        sealed = true
        pendingCalls = last + pendingCalls
        if added { settle() }
    }

    /// Takes up the connection where the old channel left it: what was carried, then the calls
    /// made meanwhile, in order.
    private func settle() {
        guard let context else { return }
        placement = .settled
        // The flags of this arrival; a later move starts from scratch.
        sealed = false
        added = false
        let wheel = KeepaliveWheel.on(context.eventLoop, interval: timeouts.pingInterval)
        wheel.register(self)
        keepalive = wheel
        let frames = carried, calls = pendingCalls
        carried = []
        pendingCalls = []
        let deferring = beginDeferredFlush()
        for frame in frames { writeFrame(frame) }
        for call in calls {
            switch call {
            case .frame(let frame): sendPrepared(frame)
            case .message(let message): send(message)
            case .close(let code, let reason): close(code: code, reason: reason)
            }
        }
        if deferring { endDeferredFlush() }
        if connection.closeState != .open { scheduleCloseTimer() }
        // The new channel starts without reading (``ConnectionMover``): what reads answer (pongs,
        // a close) goes after what the old channel left to write.
        try? context.channel.syncOptions?.setOption(ChannelOptions.autoRead, value: true)
    }

    /// The new channel could not be made: the connection is gone.
    func arrivalFailed() {
        placement = .settled
        carried = []
        pendingCalls = []
        notifyClosed(code: nil, reason: "connection lost")
        socket?.detach(self)
    }
}

/// A call made on a connection's handler while the connection moves between channels.
enum PendingCall: Sendable {
    case frame(PreparedFrame)
    case message(WebSocketMessage)
    case close(WebSocketCloseCode, String)
}
