import NIOCore
import SessionHubSync
import WebSocket

/// The handle an application holds for one open WebSocket connection. Safe to use from any
/// thread or task: calls made off the connection's event loop hop onto it, and calls made on
/// it act at once (and are flushed together at the end of the current read).
public final class WebSocketSocket: Sendable {
    /// A process-unique connection id, for logs and registries.
    public let id: UInt64
    /// The event loop the connection lives on.
    public let eventLoop: any EventLoop
    /// The upgrade request (server side), for the path, query and headers: set while
    /// ``WebSocketEndpoint/webSocketDidOpen(_:)`` runs, nil afterwards (an open connection does
    /// not keep its request's headers). Keep what you need of it when the socket opens.
    public var request: HandshakeRequest? { upgradeRequest.withLock { $0?.value } }
    private let upgradeRequest: LockedValue<UpgradeRequest?>
    /// The negotiated subprotocol, if any.
    public let subprotocol: String?
    /// The negotiated permessage-deflate parameters, if any.
    public let compression: PerMessageDeflateParameters?
    /// The peer's address.
    public let remoteAddress: SocketAddress?

    private let handler: NIOLoopBoundBox<WebSocketChannelHandler?>
    /// Carries calls made off the loop onto it, batched with the loop's other connections.
    private let outbox: LoopOutbox
    private let statistics: WebSocketStatistics?
    private let limiter: ConnectionLimiter?

    init(
        id: UInt64,
        eventLoop: any EventLoop,
        request: UpgradeRequest?,
        subprotocol: String?,
        compression: PerMessageDeflateParameters?,
        remoteAddress: SocketAddress?,
        handler: WebSocketChannelHandler,
        statistics: WebSocketStatistics? = nil,
        limiter: ConnectionLimiter? = nil
    ) {
        self.id = id
        self.eventLoop = eventLoop
        self.upgradeRequest = LockedValue(request)
        self.subprotocol = subprotocol
        self.compression = compression
        self.remoteAddress = remoteAddress
        self.handler = NIOLoopBoundBox(handler, eventLoop: eventLoop)
        self.outbox = LoopOutbox.on(eventLoop)
        self.statistics = statistics
        self.limiter = limiter
    }

    /// Reports that the connection proved to be `principal` (a user id), so that it no longer
    /// counts as unauthenticated for its address; false when `principal` already holds `limit`
    /// authenticated connections on this server (the caller then refuses this one). Counted
    /// until the connection closes. Always true on a connection without a server (a client).
    /// Callable from any thread.
    public func authenticate(as principal: String, limit: Int) -> Bool {
        limiter?.authenticate(id, as: principal, limit: limit) ?? true
    }

    /// Drops the upgrade request once the endpoint has seen the socket open.
    func releaseRequest() {
        upgradeRequest.withLock { $0 = nil }
    }

    /// Forgets the handler once the connection is gone (breaks the reference cycle).
    func detach() {
        handler.value = nil
    }

    /// Runs `body` on the handler, on its loop. When the connection is already gone, an outbound
    /// message (`isMessage`) is counted as dropped.
    private func onLoop(isMessage: Bool = true, _ body: @escaping @Sendable (WebSocketChannelHandler) -> Void) {
        let statistics = isMessage ? self.statistics : nil
        if eventLoop.inEventLoop {
            if let handler = handler.value { body(handler) } else { statistics?.noteDroppedFrame() }
        } else {
            outbox.run(body, on: handler, statistics: statistics)
        }
    }

    /// Sends a message (compressed when negotiated and worthwhile).
    public func send(_ message: WebSocketMessage) {
        // On the loop (an endpoint answering a message) no closure is made: that would allocate
        // its context for every message.
        if eventLoop.inEventLoop {
            if let handler = handler.value { handler.send(message) } else { statistics?.noteDroppedFrame() }
        } else {
            onLoop { $0.send(message) }
        }
    }

    /// Sends a text message.
    public func send(text: String) {
        send(.text(ByteBuffer(string: text)))
    }

    /// Writes a frame encoded once for many recipients.
    public func send(_ frame: PreparedFrame) {
        if eventLoop.inEventLoop {
            if let handler = handler.value { handler.sendPrepared(frame) } else { statistics?.noteDroppedFrame() }
        } else {
            outbox.send(frame, to: handler, statistics: statistics)
        }
    }

    /// Writes frames encoded once for many recipients, in order, flushed together.
    public func send(_ frames: [PreparedFrame]) {
        if eventLoop.inEventLoop {
            guard let handler = handler.value else {
                for _ in frames { statistics?.noteDroppedFrame() }
                return
            }
            let deferring = handler.beginDeferredFlush()
            for frame in frames { handler.sendPrepared(frame) }
            if deferring { handler.endDeferredFlush() }
        } else {
            for frame in frames { outbox.send(frame, to: handler, statistics: statistics) }
        }
    }

    /// Starts the close handshake; TCP closes when the peer answers or after the close timeout.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        onLoop(isMessage: false) { $0.close(code: code, reason: reason) }
    }
}
