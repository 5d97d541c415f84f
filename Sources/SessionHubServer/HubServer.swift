import HubDomain
import HubProtocol
import Logging
import Synchronization
import NIOCore
import NIOPosix
import WebSocket
import WebSocketTransport

/// The running hub: owns the event loops, the WebSocket/HTTP server and the session registry.
public final class HubServer: Sendable {
    /// The settings it was started with.
    public let configuration: HubServerConfiguration
    /// The session registry.
    public let hub: Hub
    private let group: MultiThreadedEventLoopGroup
    private let server: WebSocketServer
    private let logger: Logger
    private let ticker = Mutex<RepeatedTask?>(nil)

    /// Creates the hub; call ``start()`` to listen.
    /// - Throws: ``ScenarioCatalogError`` when a scenario file is invalid.
    /// - Parameters:
    ///   - clock, journal, history, learners: the domain's seams; in-memory defaults.
    ///   - stores: the repositories behind the HTTP API (`/api/...`, `/admin/...`); without them
    ///     those routes answer 404.
    public init(configuration: HubServerConfiguration,
                clock: any HubClock = SystemHubClock(),
                journal: any SessionJournal = InMemorySessionJournal(),
                history: any HistoryWriter = InMemoryHistoryWriter(),
                learners: any LearnerRecords = InMemoryLearnerRecords(),
                stores: HubStores? = nil,
                logger: Logger = Logger(label: "sessionhub")) throws {
        self.configuration = configuration
        self.logger = logger
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: configuration.threads)
        let catalog = try ScenarioCatalog.load(directory: configuration.scenariosDirectory)
        var deflate = PerMessageDeflateConfiguration.default
        deflate.isEnabled = configuration.compression
        let encoder = FrameEventEncoder(compressor: configuration.compression ? BroadcastCompressor(settings: deflate) : nil)
        let hubPorts = HubPorts(clock: clock, encoder: encoder, journal: journal, history: history, learners: learners)
        let hub = Hub(catalog: catalog, configuration: configuration.hub, ports: hubPorts)
        self.hub = hub
        let runtime = HubRuntime(
            hub: hub, tokens: TokenAuthority(secret: configuration.secret), clock: hubPorts.clock,
            limits: configuration.connectionLimits,
            decoder: ClientMessageDecoder(maxMessageBytes: configuration.connectionLimits.maxMessageBytes),
            logger: logger)
        let wsConfiguration = WebSocketServerConfiguration(
            host: configuration.host,
            port: configuration.port,
            compression: deflate)
        self.server = WebSocketServer(
            configuration: wsConfiguration,
            router: HubWebSocketRouter(configuration: configuration, rooms: RoomRelay(), runtime: runtime),
            responder: HubHTTPResponder(api: stores.map {
                HubAPI(tokens: TokenAuthority(secret: configuration.secret), clock: clock, stores: $0)
            }),
            group: group,
            logger: logger)
    }

    /// Binds and listens; returns the bound port. Starts the once-a-second session clock
    /// (grace windows, live stats).
    @discardableResult
    public func start() async throws -> Int {
        let address = try await server.start()
        let hub = self.hub
        let task = group.next().scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { _ in
            Task { await hub.tick() }
        }
        ticker.withLock { $0 = task }
        logger.info("hub ready", metadata: ["scenarios": "\(hub.catalog.scenarios.count)"])
        return address.port ?? configuration.port
    }

    /// The bound port, once started.
    public var port: Int? { server.localPort }

    /// Open WebSocket connections.
    public var connectionCount: Int { server.connectionCount }

    /// Ends every live session (saving history), closes every connection with 1001, stops
    /// listening and releases the event loops.
    public func shutdown(deadline: TimeAmount = .seconds(5)) async {
        ticker.withLock { $0?.cancel(); $0 = nil }
        await hub.endAll(cause: .serverShutdown)
        await server.shutdown(deadline: deadline)
        try? await group.shutdownGracefully()
    }
}
