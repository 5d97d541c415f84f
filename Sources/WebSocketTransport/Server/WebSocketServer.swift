import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import WebSocket

/// A WebSocket and HTTP/1.1 server on SwiftNIO: HTTP parsing from NIOHTTP1, every WebSocket
/// rule from our own protocol core.
public final class WebSocketServer: Sendable {
    private let configuration: WebSocketServerConfiguration
    private let router: any WebSocketRouter
    private let responder: any HTTPResponder
    private let group: any EventLoopGroup
    private let logger: Logger
    private let registry = ConnectionRegistry()
    private let limiter: ConnectionLimiter
    private let mover: ConnectionMover
    private let listener = NIOLockedValueBox<(any Channel)?>(nil)

    /// Creates a server; nothing happens until ``start()``.
    public init(
        configuration: WebSocketServerConfiguration,
        router: any WebSocketRouter,
        responder: any HTTPResponder = NotFoundResponder(),
        group: any EventLoopGroup,
        logger: Logger
    ) {
        self.configuration = configuration
        self.router = router
        self.responder = responder
        self.group = group
        self.logger = logger
        self.limiter = ConnectionLimiter(configuration: configuration, statistics: registry.statistics)
        self.mover = ConnectionMover(registry: registry, limiter: limiter, logger: logger)
    }

    /// Binds and starts accepting; returns the bound address (useful with port 0).
    @discardableResult
    public func start() async throws -> SocketAddress {
        let configuration = self.configuration
        let router = self.router
        let responder = self.responder
        let registry = self.registry
        let limiter = self.limiter
        let mover = self.mover
        let logger = self.logger
        let limit = configuration.effectiveMaxConnections
        let statistics = registry.statistics
        let lastRefusalLog = NIOLockedValueBox<NIODeadline?>(nil)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: configuration.backlog)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(ChannelOptions.maxMessagesPerRead, value: Self.readsPerEvent)
            .childChannelOption(ChannelOptions.recvAllocator, value: Self.receiveAllocator)
            .childChannelInitializer { channel in
                guard statistics.admit(limit: limit) else {
                    // Over the limit: close at once, so the descriptor comes back before the
                    // process runs out of them. Logged at most every 10 s.
                    let now = NIODeadline.now()
                    let due = lastRefusalLog.withLockedValue { last -> Bool in
                        guard last.map({ now - $0 >= .seconds(10) }) ?? true else { return false }
                        last = now
                        return true
                    }
                    if due {
                        logger.warning("connection limit reached; refusing new connections", metadata: [
                            "limit": "\(limit)", "refused_total": "\(statistics.refusedConnections)",
                        ])
                    }
                    return channel.close()
                }
                let id = registry.nextID()
                limiter.open(id)
                channel.closeFuture.whenComplete { _ in
                    if registry.remove(id, channel: channel) { ConnectionMover.release(id, registry: registry, limiter: limiter) }
                }
                // The peer's address counts now, unless it is a trusted proxy: then each request
                // head names the client (X-Forwarded-For), and is counted there.
                let peer = channel.remoteAddress
                if !limiter.isTrustedProxy(peer), let address = peer?.ipAddress,
                   let refusal = limiter.attribute(id, to: address) {
                    logger.debug("connection refused on accept", metadata: ["address": "\(address)", "reason": "\(refusal.rawValue)"])
                    return channel.close()
                }
                return channel.eventLoop.makeCompletedFuture {
                    try Self.installHTTPHandlers(on: channel, configuration: configuration, router: router,
                                                 responder: responder, registry: registry, limiter: limiter, mover: mover,
                                                 id: id, readsPerEvent: Self.readsPerEvent, logger: logger)
                }
            }
            .bind(host: configuration.host, port: configuration.port)
            .get()
        listener.withLockedValue { $0 = channel }
        guard let address = channel.localAddress else {
            throw ChannelError.unknownLocalAddress
        }
        logger.info("listening", metadata: ["address": "\(address)"])
        return address
    }

    /// Reads per readable event on a connection (`maxMessagesPerRead`).
    static let readsPerEvent: UInt = 4

    /// Small first reads: an idle connection keeps its pooled receive buffer, so its size is
    /// per-connection memory; the allocator grows it for connections that send more.
    static let receiveAllocator = CompactReceiveAllocator(minimum: 64, initial: 256, maximum: 65_536)

    /// Installs the HTTP/1.1 codec, the input watcher and the upgrade handler on a new
    /// connection's pipeline. `readsPerEvent`: the socket channel's `maxMessagesPerRead`, so that
    /// an upgraded connection can trim its receive-buffer pool (nil on channels that have no such
    /// option, as in tests).
    static func installHTTPHandlers(
        on channel: any Channel,
        configuration: WebSocketServerConfiguration,
        router: any WebSocketRouter,
        responder: any HTTPResponder,
        registry: ConnectionRegistry,
        limiter: ConnectionLimiter? = nil,
        mover: ConnectionMover? = nil,
        id: UInt64? = nil,
        readsPerEvent: UInt? = nil,
        logger: Logger
    ) throws {
        let decoderName = "http-decoder"
        let encoderName = "http-encoder"
        let watcherName = "http-input-watcher"
        let upgrade = HTTPUpgradeHandler(
            configuration: configuration, router: router, responder: responder, registry: registry, limiter: limiter,
            id: id ?? registry.nextID(), logger: logger, decoderName: decoderName, encoderName: encoderName,
            watcherName: watcherName)
        upgrade.readsPerEvent = readsPerEvent
        upgrade.mover = mover
        let sync = channel.pipeline.syncOperations
        try sync.addHandler(HTTPResponseEncoder(), name: encoderName)
        try sync.addHandler(HTTPInputWatcher(reportingTo: upgrade), name: watcherName)
        try sync.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)), name: decoderName)
        try sync.addHandler(upgrade)
    }

    /// The connection counts per address and user (for tests and diagnostics).
    var connectionCounts: ConnectionCounts { limiter.snapshot }

    /// The port the server is bound to, once started.
    public var localPort: Int? {
        listener.withLockedValue { $0?.localAddress?.port }
    }

    /// Open WebSocket connections.
    public var connectionCount: Int { registry.count }

    /// Slow-consumer disconnects and dropped frames across all connections.
    public var statistics: WebSocketStatistics { registry.statistics }

    /// Stops accepting connections; existing ones stay open.
    public func stopAccepting() async {
        let channel = listener.withLockedValue { current -> (any Channel)? in
            defer { current = nil }
            return current
        }
        try? await channel?.close()
    }

    /// Stops accepting, sends every connection a close frame (1001 by default) and waits up to
    /// `deadline` for them to finish their close handshakes; the rest are closed outright.
    public func shutdown(code: WebSocketCloseCode = .goingAway, reason: String = "server shutting down",
                         deadline: TimeAmount = .seconds(5)) async {
        await stopAccepting()
        let channels = registry.channels
        for channel in channels {
            channel.pipeline.fireUserInboundEventTriggered(WebSocketCloseRequest(code: code, reason: reason))
        }
        let start = NIODeadline.now()
        while registry.count > 0, NIODeadline.now() - start < deadline {
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        for channel in registry.channels {
            try? await channel.close()
        }
    }
}
