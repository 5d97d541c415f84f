import Logging
import NIOCore
import NIOPosix
import WebSocket
import WebSocketTransport

/// The running hub: owns the event loops and the WebSocket/HTTP server.
public final class HubServer: Sendable {
    /// The settings it was started with.
    public let configuration: HubServerConfiguration
    private let group: MultiThreadedEventLoopGroup
    private let server: WebSocketServer
    private let logger: Logger

    /// Creates the hub; call ``start()`` to listen.
    public init(configuration: HubServerConfiguration, logger: Logger = Logger(label: "sessionhub")) {
        self.configuration = configuration
        self.logger = logger
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: configuration.threads)
        let wsConfiguration = WebSocketServerConfiguration(
            host: configuration.host,
            port: configuration.port,
            compression: {
                var compression = PerMessageDeflateConfiguration.default
                compression.isEnabled = configuration.compression
                return compression
            }())
        self.server = WebSocketServer(
            configuration: wsConfiguration,
            router: HubWebSocketRouter(configuration: configuration, rooms: RoomRelay()),
            responder: HubHTTPResponder(),
            group: group,
            logger: logger)
    }

    /// Binds and listens; returns the bound port.
    @discardableResult
    public func start() async throws -> Int {
        let address = try await server.start()
        return address.port ?? configuration.port
    }

    /// The bound port, once started.
    public var port: Int? { server.localPort }

    /// Open WebSocket connections.
    public var connectionCount: Int { server.connectionCount }

    /// Closes every connection with 1001, stops listening and releases the event loops.
    public func shutdown(deadline: TimeAmount = .seconds(5)) async {
        await server.shutdown(deadline: deadline)
        try? await group.shutdownGracefully()
    }
}
