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
    /// What ``start()`` rebuilt from the journal (nil before, or with a journal that cannot be read back).
    public var recovery: RecoveryReport? { recovered.withLock { $0 } }
    private let recovered = Mutex<RecoveryReport?>(nil)
    /// The settings it was started with.
    public let configuration: HubServerConfiguration
    /// The session registry.
    public let hub: Hub
    private let group: MultiThreadedEventLoopGroup
    private let server: WebSocketServer
    private let logger: Logger
    private let ticker = Mutex<RepeatedTask?>(nil)
    private let lagProbe = Mutex<EventLoopLagProbe?>(nil)
    /// The storage's periodic upkeep, one pass at a time.
    private let upkeep: UpkeepRunner
    private let persistence: HubPersistence
    private let operators: OperatorConsole
    private let metricsSource: MetricsSource
    private let dashboard: DashboardFeed
    /// The expiry wheel of the `/ws` connections.
    let expiries: TokenExpiryWheel
    private let clusterNode: ClusterNode?
    /// Keeps the identity provider's keys current, when one is configured.
    private let jwksRefresher: JWKSRefresher?
    private let jwksTask = Mutex<Task<Void, Never>?>(nil)
    /// The shutdown under way or done: a second ``shutdown(deadline:)`` waits for the first
    /// (the registry and the sessions run on the event loops, gone once it is over).
    private let stopping = Mutex<Task<Void, Never>?>(nil)

    /// Creates the hub; call ``start()`` to listen.
    /// - Throws: ``ScenarioCatalogError`` when a scenario file is invalid.
    /// - Parameters:
    ///   - clock, journal, history, learners: the domain's seams; in-memory defaults.
    ///   - stores: the repositories behind the HTTP API (`/api/...`, `/admin/...`); without them
    ///     those routes answer 404.
    public convenience init(configuration: HubServerConfiguration,
                            clock: any HubClock = SystemHubClock(),
                            journal: any SessionJournal = InMemorySessionJournal(),
                            history: any HistoryWriter = InMemoryHistoryWriter(),
                            learners: any LearnerRecords = InMemoryLearnerRecords(),
                            stores: HubStores? = nil,
                            logger: Logger = Logger(label: "sessionhub")) throws {
        try self.init(configuration: configuration, clock: clock,
                      persistence: HubPersistence(journal: journal, history: history, learners: learners, stores: stores),
                      logger: logger)
    }

    /// Creates the hub on `persistence` (see ``HubPersistence/sqlite(path:logger:)``); call
    /// ``start()`` to listen.
    ///
    /// `eventLoopGroup` is the group the hub serves on (one made of
    /// ``HubServerConfiguration/threads`` threads when nil); pass it when the storage should run
    /// on the same loops. The server takes it over: ``shutdown(deadline:)`` closes the storage
    /// and then shuts the group down.
    /// - Throws: ``ScenarioCatalogError`` when a scenario file is invalid; ``JWKSError`` when the
    ///   identity provider's settings contradict each other.
    public init(configuration: HubServerConfiguration,
                clock: any HubClock = SystemHubClock(),
                persistence: HubPersistence,
                eventLoopGroup: MultiThreadedEventLoopGroup? = nil,
                logger: Logger = Logger(label: "sessionhub")) throws {
        let journal = persistence.journal, history = persistence.history
        let learners = persistence.learners, stores = persistence.stores
        self.persistence = persistence
        self.upkeep = UpkeepRunner(persistence.maintenance)
        self.configuration = configuration
        self.logger = logger
        self.group = eventLoopGroup ?? MultiThreadedEventLoopGroup(numberOfThreads: configuration.threads)
        let catalog = try ScenarioCatalog.load(directory: configuration.scenariosDirectory)
        var deflate = PerMessageDeflateConfiguration.default
        deflate.isEnabled = configuration.compression
        let encoder = FrameEventEncoder(compressor: configuration.compression ? BroadcastCompressor(settings: deflate) : nil)
        let channels = UserChannels()
        let metrics = HubMetrics()
        let notifying = NotifyingHistoryWriter(inner: history, channels: channels, history: stores?.history, metrics: metrics)
        metrics.nodeInfo(node: persistence.cluster?.directory.local.nodeId ?? "local", version: BuildInfo.version)
        let hubPorts = HubPorts(clock: clock, encoder: encoder, journal: MeasuredJournal(inner: journal, metrics: metrics),
                                history: notifying, learners: OffLoopLearnerRecords(inner: learners),
                                resumeTokens: SignedResumeTokens(secret: configuration.secret),
                                directory: persistence.cluster?.directory ?? SingleNodeDirectory(),
                                executors: EventLoopSessionExecutors(group: group))
        let hub = Hub(catalog: catalog, configuration: configuration.hub, ports: hubPorts)
        self.hub = hub
        if let cluster = persistence.cluster, let recoverable = journal as? any RecoverableJournal {
            clusterNode = ClusterNode(storage: cluster, journal: recoverable, hub: hub, settings: configuration.cluster,
                                      logger: logger, metrics: metrics)
        } else {
            clusterNode = nil
        }
        let identity = configuration.identityProvider
        var identityVerifier: IdentityProviderVerifier?
        if let source = try identity.source() {
            let ring = JWKSKeyRing()
            jwksRefresher = JWKSRefresher(source: source, ring: ring, settings: identity, group: group, logger: logger)
            identityVerifier = IdentityProviderVerifier(keys: ring, issuer: identity.issuer, audience: identity.requiredAudience,
                                                        policy: configuration.tokenPolicy)
        } else {
            jwksRefresher = nil
        }
        let tokens = HubTokenVerifier(hub: TokenAuthority(secret: configuration.secret, policy: configuration.tokenPolicy),
                                      identityProvider: identityVerifier)
        let operators = OperatorConsole(hub: hub, tokens: tokens, clock: clock,
                                        storage: StorageProbe(persistence), logger: logger)
        self.operators = operators
        let metricsSource = MetricsSource(metrics: metrics, hub: hub, channels: channels)
        self.metricsSource = metricsSource
        let dashboard = DashboardFeed(console: operators, metrics: metricsSource, settings: configuration.dashboard)
        self.dashboard = dashboard
        let dashboardAssets = StaticAssets.dashboard(), playAssets = StaticAssets.play()
        for assets in [dashboardAssets, playAssets] {
            if let problem = assets.problem {
                logger.warning("static files unavailable", metadata: ["problem": "\(problem)"])
            }
        }
        let cors = try configuration.web.corsPolicy()
        var devSignIn: DevSignIn?
        if let audience = try configuration.web.devSignInAudience(host: configuration.host,
                                                                   trustedProxies: configuration.connectionPolicy.trustedProxies) {
            devSignIn = DevSignIn(audience: audience,
                                  authority: TokenAuthority(secret: configuration.secret, policy: configuration.tokenPolicy),
                                  clock: hubPorts.clock, profiles: stores?.profiles, maxBodyBytes: configuration.maxAPIBodySize)
            if audience == .everyone {
                logger.warning("development sign-in is on for a hub others can reach: anyone can sign in as anyone (http.devSignIn off turns it off)",
                               metadata: ["host": "\(configuration.host)"])
            }
        }
        let runtime = HubRuntime(
            hub: hub, tokens: tokens, clock: hubPorts.clock,
            limits: configuration.connectionLimits,
            decoder: ClientMessageDecoder(),
            logger: logger,
            account: AccountRequests(service: stores.map {
                AccountService(stores: $0, clock: clock, postedSessions: PostedSessionRules(configuration.hub),
                               maxFullHistoryPage: configuration.maxFullHistoryPage)
            }),
            channels: channels,
            metrics: metrics)
        self.expiries = runtime.expiries
        let wsConfiguration = WebSocketServerConfiguration(
            host: configuration.host,
            port: configuration.port,
            handshake: configuration.handshake,
            compression: deflate,
            maxConnections: configuration.maxConnections,
            connectionPolicy: configuration.connectionPolicy)
        self.server = WebSocketServer(
            configuration: wsConfiguration,
            router: HubWebSocketRouter(configuration: configuration, rooms: RoomRelay(), runtime: runtime, dashboard: dashboard),
            responder: HubHTTPResponder(api: stores.map {
                HubAPI(tokens: tokens, clock: clock, stores: $0, maxBodyBytes: configuration.maxAPIBodySize,
                       postedSessions: PostedSessionRules(configuration.hub),
                       maxFullHistoryPage: configuration.maxFullHistoryPage, channels: channels)
            }, metrics: metricsSource, operators: operators, dashboard: dashboardAssets, play: playAssets,
            devSignIn: devSignIn, cors: cors,
            joinCodes: JoinCodeLookup(hub: hub, tokens: tokens, clock: clock),
            maxAPIBodySize: configuration.maxAPIBodySize),
            group: group,
            logger: logger)
        operators.attach { [server = self.server] in server.connectionCount }
        if let clusterNode, let cluster = persistence.cluster {
            let node = cluster.directory.local.nodeId
            operators.attach(cluster: { (node, clusterNode.admission.admitted, clusterNode.admission.reason) })
            operators.attach(relay: ClusterRelay(local: cluster.directory.local, peers: { [registry = cluster.registry] in
                try await registry.peers()
            }, client: PeerClient(group: group)))
        }
        metricsSource.attach(server)
    }

    /// Rebuilds the sessions a crash left open in the journal (when it can be read back), runs
    /// the storage upkeep once, binds and listens; returns the bound port. Starts the
    /// once-a-second session clock (grace windows, live stats), the periodic upkeep and heap trim.
    /// - Throws: ``JWKSError`` when the identity provider's keys cannot be loaded; when the
    ///   journal cannot be read or the port cannot be bound.
    @discardableResult
    public func start() async throws -> Int {
        if let jwksRefresher {
            try await jwksRefresher.reload()
            let identity = configuration.identityProvider
            if identity.requiredAudience == nil {
                logger.warning("identity provider audience is *: what the provider issued for any of its apps is accepted")
            }
            if identity.issuer == nil {
                logger.warning("identity provider issuer not set: any issuer signing with these keys is accepted")
            }
            logger.info("identity provider accepted", metadata: [
                "jwks": "\(jwksRefresher.source)", "issuer": "\(identity.issuer ?? "any")",
                "audience": "\(identity.requiredAudience ?? "any")",
            ])
            jwksTask.withLock { $0 = Task { await jwksRefresher.run() } }
        }
        do {
            return try await startServing()
        } catch {
            // The key refresher stops with a start that failed, before the caller lets the
            // event loops go.
            let refresher = jwksTask.withLock { task -> Task<Void, Never>? in
                defer { task = nil }
                task?.cancel()
                return task
            }
            await refresher?.value
            throw error
        }
    }

    /// The part of ``start()`` after the identity provider's keys are loaded.
    private func startServing() async throws -> Int {
        let hub = self.hub
        // A node joins its cluster first: a second process with the same node id stops here,
        // before it could rebuild (and so write to) the first one's sessions.
        try await clusterNode?.start()
        if let journal = persistence.journal as? any RecoverableJournal {
            let report = try await hub.recover(from: journal)
            recovered.withLock { $0 = report }
            if report != RecoveryReport() {
                logger.notice("sessions recovered from the journal", metadata: [
                    "resumable": "\(report.resumable)", "ended": "\(report.ended)", "discarded": "\(report.discarded)",
                    "skipped": "\(report.skipped.count)",
                ])
                for (sessionId, reason) in report.skipped {
                    logger.warning("session left in the journal", metadata: ["session": "\(sessionId)", "reason": "\(reason)"])
                }
            }
        }
        await upkeep.runNow()
        let address = try await server.start()
        let upkeep = upkeep
        let every = max(1, configuration.maintenanceIntervalSeconds)
        let trimEvery = configuration.heapTrimIntervalSeconds
        let ticks = Atomic<Int>(0)
        // Ten slices of sessions, one every 100 ms: each session ticks once a second, and their
        // live stats do not all go out at the same instant.
        let slices = 10
        let tickLoop = group.next()
        let tickExecutor = EventLoopTaskExecutor.on(tickLoop)
        let task = tickLoop.scheduleRepeatedTask(initialDelay: .milliseconds(100), delay: .milliseconds(100)) { _ in
            let tick = ticks.add(1, ordering: .relaxed).newValue
            Task(executorPreference: tickExecutor) {
                await hub.tick(slice: tick % slices, of: slices)
                if tick % (every * slices) == 0 { upkeep.startIfIdle() }
                if trimEvery > 0, tick % (trimEvery * slices) == 5 { HeapTrimmer.trim() }
            }
        }
        ticker.withLock { $0 = task }
        let metrics = metricsSource.metrics
        let probe = EventLoopLagProbe(loops: Array(group.makeIterator())) { metrics.loopLag(nanoseconds: $0) }
        lagProbe.withLock { $0 = probe }
        logger.info("hub ready", metadata: ["scenarios": "\(hub.catalog.scenarios.count)"])
        return address.port ?? configuration.port
    }

    /// The bound port, once started.
    public var port: Int? { server.localPort }

    /// Open WebSocket connections.
    public var connectionCount: Int { server.connectionCount }

    /// Every metric in Prometheus text format (what `/metrics` serves).
    public func metricsText() async -> String {
        await metricsSource.render()
    }

    /// Ends every live session (saving history), closes every connection with 1001, stops
    /// listening and releases the event loops. Runs once: a later call (a second SIGTERM, a
    /// test's cleanup) waits until the first is done, with the first call's deadline.
    public func shutdown(deadline: TimeAmount = .seconds(Int64(HubServerConfiguration.defaultDrainTimeoutSeconds))) async {
        let task = stopping.withLock { task -> Task<Void, Never> in
            if let task { return task }
            let started = Task { await self.stop(deadline: deadline) }
            task = started
            return started
        }
        await task.value
    }

    private func stop(deadline: TimeAmount) async {
        operators.beginDraining()
        dashboard.stop()
        ticker.withLock { $0?.cancel(); $0 = nil }
        lagProbe.withLock { $0?.stop(); $0 = nil }
        let refresher = jwksTask.withLock { task -> Task<Void, Never>? in
            defer { task = nil }
            task?.cancel()
            return task
        }
        // With live peers, a node hands its sessions over (their players resume on a peer)
        // instead of ending them; alone, it ends them.
        _ = await clusterNode?.handOver()
        await hub.endAll(cause: .serverShutdown)
        await clusterNode?.leave()
        await server.shutdown(deadline: deadline)
        // A key fetch in flight runs on the event loops: it ends before they do.
        await refresher?.value
        // The storage may run on these loops (PostgreSQL's connections do): it closes first,
        // once an upkeep pass in flight is done with it.
        await upkeep.stop()
        await persistence.close?()
        try? await group.shutdownGracefully()
    }
}
