import HubDomain
import Logging
import Synchronization

/// What the operator routes (`/admin/api/*`, `/readyz`) share with the running server: the
/// hub, token verification, the clock, the storage probe, when the server started, whether it
/// is draining, and how many WebSocket connections are open.
final class OperatorConsole: Sendable {
    let hub: Hub
    let tokens: HubTokenVerifier
    let clock: any HubClock
    let storage: StorageProbe
    let logger: Logger
    /// Epoch ms when the server was created.
    let startedAt: Int64
    private let draining = Atomic<Bool>(false)
    private let connections = Mutex<(@Sendable () -> Int)?>(nil)
    private let cluster = Mutex<(@Sendable () -> (node: String, admitted: Bool, reason: String?))?>(nil)
    private let relayed = Mutex<ClusterRelay?>(nil)

    init(hub: Hub, tokens: HubTokenVerifier, clock: any HubClock, storage: StorageProbe, logger: Logger) {
        self.hub = hub
        self.tokens = tokens
        self.clock = clock
        self.storage = storage
        self.logger = logger
        self.startedAt = clock.now()
    }

    /// Connects the count of open WebSocket connections (the server exists after the console).
    func attach(connectionCount: @escaping @Sendable () -> Int) {
        connections.withLock { $0 = connectionCount }
    }

    /// Connects the node's standing in its cluster (a cluster node only).
    func attach(cluster standing: @escaping @Sendable () -> (node: String, admitted: Bool, reason: String?)) {
        cluster.withLock { $0 = standing }
    }

    /// Connects the way to the cluster's other nodes (a cluster node only).
    func attach(relay: ClusterRelay) {
        relayed.withLock { $0 = relay }
    }

    /// How the operator routes reach the other nodes; nil on a single node.
    var relay: ClusterRelay? { relayed.withLock { $0 } }

    /// This node's id (`local` on a single node).
    var nodeId: String { hub.localNode.nodeId }

    /// A short-lived operator token this node uses to ask its peers for their sessions (the
    /// dashboard's feed): `node:<id>`, valid one minute.
    func nodeToken() -> String {
        let now = Int(clock.now() / 1000)
        return tokens.hub.mint(TokenClaims(sub: "node:\(nodeId)", name: nodeId, iat: now, exp: now + 60, role: "admin"))
    }

    /// This node's id and whether its cluster lets it take new players (nil: not a cluster node).
    var clusterStanding: (node: String, admitted: Bool, reason: String?)? { cluster.withLock { $0 }?() }

    /// Open WebSocket connections.
    var connectionCount: Int { connections.withLock { $0 }?() ?? 0 }

    /// Marks the server as draining: `/readyz` answers 503 from now on. Called first thing on
    /// shutdown, before the sessions are ended, so a load balancer stops sending players here.
    func beginDraining() {
        draining.store(true, ordering: .sequentiallyConsistent)
    }

    /// Whether the server is shutting down.
    var isDraining: Bool { draining.load(ordering: .sequentiallyConsistent) }

    /// Whole seconds since the server was created.
    var uptimeSeconds: Int64 { max(0, clock.now() - startedAt) / 1000 }
}
