import NIOCore
import SessionHubSync
import WebSocket

/// The handle an application holds for one open WebSocket connection. Safe to use from any
/// thread or task: calls made off the connection's event loop hop onto it, and calls made on
/// it act at once (and are flushed together at the end of the current read).
public final class WebSocketSocket: Sendable {
    /// A process-unique connection id, for logs and registries.
    public let id: UInt64
    /// The event loop the connection lives on (another one after ``move(to:)``).
    public var eventLoop: any EventLoop { binding.withLock { $0 }.eventLoop }
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

    /// Where the connection lives: its loop, its handler there and that loop's outbox. Replaced
    /// (never changed in place) when the connection moves to another loop.
    private let binding: LockedValue<SocketBinding>
    private let statistics: WebSocketStatistics?
    private let limiter: ConnectionLimiter?
    /// Moves the connection to another loop; nil on the client side (a client connection stays).
    private let mover: ConnectionMover?

    init(
        id: UInt64,
        eventLoop: any EventLoop,
        request: UpgradeRequest?,
        subprotocol: String?,
        compression: PerMessageDeflateParameters?,
        remoteAddress: SocketAddress?,
        handler: WebSocketChannelHandler,
        statistics: WebSocketStatistics? = nil,
        limiter: ConnectionLimiter? = nil,
        mover: ConnectionMover? = nil
    ) {
        self.id = id
        self.upgradeRequest = LockedValue(request)
        self.subprotocol = subprotocol
        self.compression = compression
        self.remoteAddress = remoteAddress
        self.binding = LockedValue(SocketBinding(eventLoop: eventLoop, handler: HandlerBox(handler, eventLoop: eventLoop)))
        self.statistics = statistics
        self.limiter = limiter
        self.mover = mover
    }

    /// The current binding (one lock round and one retain).
    private var current: SocketBinding { binding.withLock { $0 } }

    /// The binding when the caller is on its loop (to act at once); otherwise nil, once
    /// `enqueue` has queued the call on the binding's outbox. Decided under the lock that
    /// ``rebind(to:handler:)`` takes, so a call is either queued where the moving connection
    /// collects its last calls or made after the move, never lost between the two.
    private func route(_ enqueue: (SocketBinding) -> Void) -> SocketBinding? {
        binding.withLock { binding in
            if binding.eventLoop.inEventLoop { return binding }
            enqueue(binding)
            return nil
        }
    }

    /// Moves the connection to `target`, so that the work of whatever it talks to there (a
    /// session on that loop) reaches the socket without a thread switch: what was written is
    /// flushed, the socket's descriptor goes to a channel on `target` with the connection's whole
    /// WebSocket state (partial frames, compression contexts), and the old channel lets go of it
    /// without touching the TCP connection. Messages keep their order both ways; the peer sees
    /// nothing. The socket object stays the same.
    ///
    /// Returns false, leaving the connection where it is, when it cannot move: a client
    /// connection, one that is closing or has a backlog of unwritten bytes, or a channel whose
    /// descriptor cannot be found. Returns true at once when it is already on `target`.
    public func move(to target: any EventLoop) async -> Bool {
        guard let mover else { return false }
        let from = current
        if from.eventLoop === target { return true }
        let handler = from.handler
        let moved = from.eventLoop.flatSubmit { () -> EventLoopFuture<Bool> in
            guard let handler = handler.value else { return from.eventLoop.makeSucceededFuture(false) }
            return handler.move(to: target, mover: mover)
        }
        return (try? await moved.get()) ?? false
    }

    /// On the old loop, as the connection moves: from now on calls go to `handler` on `eventLoop`.
    func rebind(to eventLoop: any EventLoop, handler: HandlerBox) {
        let binding = SocketBinding(eventLoop: eventLoop, handler: handler)
        self.binding.withLock { $0 = binding }
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

    /// Forgets `handler` once its connection is gone (breaks the reference cycle); a handler the
    /// connection moved away from is not the bound one any more, and changes nothing.
    func detach(_ handler: WebSocketChannelHandler) {
        let binding = current
        if binding.eventLoop.inEventLoop, binding.handler.value === handler { binding.handler.value = nil }
    }

    /// Runs `body` on the handler, on its loop. When the connection is already gone, an outbound
    /// message (`isMessage`) is counted as dropped.
    private func onLoop(isMessage: Bool = true, _ body: @escaping @Sendable (WebSocketChannelHandler) -> Void) {
        let statistics = isMessage ? self.statistics : nil
        guard let binding = route({ $0.outbox.run(body, on: $0.handler, statistics: statistics) }) else { return }
        if let handler = binding.handler.value { body(handler) } else { statistics?.noteDroppedFrame() }
    }

    /// Sends a message (compressed when negotiated and worthwhile).
    public func send(_ message: WebSocketMessage) {
        // On the loop (an endpoint answering a message) no closure is made: that would allocate
        // its context for every message.
        let statistics = self.statistics
        guard let binding = route({ $0.outbox.run({ $0.send(message) }, on: $0.handler, statistics: statistics) }) else { return }
        if let handler = binding.handler.value { handler.send(message) } else { statistics?.noteDroppedFrame() }
    }

    /// Sends a text message.
    public func send(text: String) {
        send(.text(ByteBuffer(string: text)))
    }

    /// Writes a frame encoded once for many recipients.
    public func send(_ frame: PreparedFrame) {
        let statistics = self.statistics
        guard let binding = route({ $0.outbox.send(frame, to: $0.handler, statistics: statistics) }) else { return }
        if let handler = binding.handler.value { handler.sendPrepared(frame) } else { statistics?.noteDroppedFrame() }
    }

    /// Writes frames encoded once for many recipients, in order, flushed together.
    public func send(_ frames: [PreparedFrame]) {
        let statistics = self.statistics
        guard let binding = route({ binding in
            for frame in frames { binding.outbox.send(frame, to: binding.handler, statistics: statistics) }
        }) else { return }
        guard let handler = binding.handler.value else {
            for _ in frames { statistics?.noteDroppedFrame() }
            return
        }
        let deferring = handler.beginDeferredFlush()
        for frame in frames { handler.sendPrepared(frame) }
        if deferring { handler.endDeferredFlush() }
    }

    /// Starts the close handshake; TCP closes when the peer answers or after the close timeout.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        onLoop(isMessage: false) { $0.close(code: code, reason: reason) }
    }
}
