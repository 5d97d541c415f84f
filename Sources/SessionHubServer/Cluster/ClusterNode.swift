import HubDomain
import Logging
import Synchronization

/// This node's part in a cluster, run by ``HubServer``: joins the cluster before the hub listens,
/// proves every ``ClusterSettings/heartbeatInterval`` that it is alive, declares silent peers
/// dead and adopts their sessions (in batches, through the restart path: ``Hub/adopt(_:from:)``),
/// lets go of every session when the cluster declared it dead, and hands its sessions over to
/// its peers on shutdown. The rules live in ``ClusterMembership``; this type does the I/O.
final class ClusterNode: Sendable {
    private let registry: any NodeRegistry
    private let journal: any RecoverableJournal
    private let hub: Hub
    private let settings: ClusterSettings
    private let logger: Logger
    private let metrics: HubMetrics
    private let membership = Mutex(ClusterMembership())
    private let standing = Mutex<(admitted: Bool, reason: String?)>((false, "not_registered"))
    private let loop = Mutex<Task<Void, Never>?>(nil)
    /// When this node last regained the database after heartbeats failed (never: distant past).
    private let healthySince = Mutex(ContinuousClock.now - .seconds(86_400 * 365))

    init(storage: ClusterStorage, journal: any RecoverableJournal, hub: Hub, settings: ClusterSettings,
         logger: Logger, metrics: HubMetrics) {
        self.registry = storage.registry
        self.journal = journal
        self.hub = hub
        self.settings = settings
        self.logger = logger
        self.metrics = metrics
    }

    /// Whether the node takes new players, and why not (`not_registered`, `storage_unreachable`,
    /// `evicted`, `draining`) — what `/readyz` reports.
    var admission: (admitted: Bool, reason: String?) { standing.withLock { $0 } }

    /// Joins the cluster and starts the heartbeat. Call before the hub rebuilds its own sessions
    /// and listens.
    /// - Throws: ``HubDomain/NodeRegistryError/nodeIdInUse(_:)`` when another running node has
    ///   this id, or the database's error when it cannot be reached.
    func start() async throws {
        try await registry.join()
        await perform(membership.withLock { $0.joined() })
        let interval = Duration.nanoseconds(settings.heartbeatInterval.nanoseconds)
        let task = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self, !Task.isCancelled else { return }
                await self.perform(self.membership.withLock { $0.tick() })
            }
        }
        loop.withLock { $0 = task }
    }

    /// Stops taking players and adopting. When live peers remain, hands every live session over
    /// to them (their members are told to resume elsewhere) and returns how many; alone (or
    /// unable to reach the database) it returns 0 and the caller ends the sessions as a lone hub does.
    func handOver() async -> Int {
        loop.withLock { $0?.cancel(); $0 = nil }
        await perform(membership.withLock { $0.leave() })
        let peers: [NodeLocation]
        do {
            peers = try await registry.peers()
        } catch {
            logger.warning("cannot reach the cluster to hand sessions over; ending them here", metadata: ["error": "\(error)"])
            return 0
        }
        guard !peers.isEmpty else { return 0 }
        let ids = await hub.liveSessionIds
        guard !ids.isEmpty else { return 0 }
        do {
            try await registry.handOver(sessionIds: ids)
        } catch {
            logger.warning("handing sessions over failed; ending them here", metadata: ["error": "\(error)"])
            return 0
        }
        let released = await hub.relinquishAll(.handedOver)
        metrics.clusterEvent("handed_over", count: released.count)
        logger.notice("sessions handed over to peers", metadata: [
            "sessions": "\(released.count)", "peers": "\(peers.map(\.nodeId).joined(separator: ","))",
        ])
        return released.count
    }

    /// Leaves the cluster: peers need not wait for the liveness timeout.
    func leave() async {
        loop.withLock { $0?.cancel(); $0 = nil }
        await registry.leave()
    }

    /// One heartbeat interval, run by hand (tests).
    func beat() async {
        await perform(membership.withLock { $0.tick() })
    }

    private func perform(_ actions: [ClusterMembership.Action]) async {
        for action in actions {
            switch action {
            case .heartbeat:
                let next: [ClusterMembership.Action]
                do {
                    let wasUnreachable = membership.withLock { $0.state == .unreachable }
                    let alive = try await registry.heartbeat()
                    if wasUnreachable { healthySince.withLock { $0 = .now } }
                    next = membership.withLock { $0.heartbeat(alive: alive) }
                } catch {
                    next = membership.withLock { $0.heartbeatFailed() }
                    if !next.isEmpty {
                        logger.error("cannot reach the database: taking no new players", metadata: ["error": "\(error)"])
                    }
                }
                await perform(next)
            case .admit(let open, let reason):
                standing.withLock { $0 = (open, reason) }
                await hub.setAdmission(open)
            case .sweep:
                await sweep()
            case .relinquishAll:
                let released = await hub.relinquishAll(.moved)
                metrics.clusterEvent("evicted", count: 1)
                metrics.clusterEvent("relinquished", count: released.count)
                logger.critical("the cluster declared this node dead; its sessions belong to peers now", metadata: [
                    "sessions": "\(released.count)",
                ])
            case .join:
                do {
                    try await registry.join()
                    logger.notice("joined the cluster")
                    await perform(membership.withLock { $0.joined() })
                } catch {
                    logger.error("cannot join the cluster", metadata: ["error": "\(error)"])
                    await perform(membership.withLock { $0.joinFailed() })
                }
            }
        }
    }

    /// Declares silent peers dead, then claims sessions nobody alive owns, batch by batch, and
    /// rebuilds them here. After an outage of the database, peers are judged only once this node
    /// has been back for a whole liveness timeout: every node's heartbeat looks stale until each
    /// has reconnected, and the first one back must not evict the others. A crash is a free lock
    /// plus 1.5 heartbeat intervals of silence (a node that reconnects takes its lock back sooner).
    private func sweep() async {
        let timeout = Duration.nanoseconds(settings.livenessTimeout.nanoseconds)
        let judging = ContinuousClock.now - healthySince.withLock { $0 } >= timeout
        do {
            let grace = Duration.nanoseconds(3 * settings.heartbeatInterval.nanoseconds / 2)
            for peer in judging ? try await registry.deadNodes(timeout: timeout, grace: grace) : [] {
                metrics.clusterEvent("peer_dead", count: 1)
                logger.warning("peer declared dead; adopting its sessions", metadata: ["peer": "\(peer)"])
            }
            while true {
                let claimed = try await registry.claimSessions(limit: settings.claimBatchSize)
                guard !claimed.isEmpty else { break }
                let report = await hub.adopt(claimed, from: journal)
                metrics.clusterEvent("adopted", count: claimed.count)
                logger.notice("sessions adopted", metadata: [
                    "claimed": "\(claimed.count)", "resumable": "\(report.resumable)", "ended": "\(report.ended)",
                    "skipped": "\(report.skipped.count)",
                ])
                if claimed.count < settings.claimBatchSize { break }
            }
        } catch {
            logger.warning("cluster sweep failed", metadata: ["error": "\(error)"])
        }
    }
}
