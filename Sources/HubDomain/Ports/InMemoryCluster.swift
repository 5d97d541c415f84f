import SessionHubSync

/// A cluster's shared store in memory — what PostgreSQL holds for a real cluster: the nodes and
/// their liveness, sessions with their owner node and epoch, their journal entries, and every
/// user's one seat. Each node sees it through ``node(_:)``: a journal fenced by the epochs that
/// node holds, a ``SessionDirectory`` and a ``NodeRegistry``. For tests and single-process demos;
/// nothing survives the process.
public final class InMemoryCluster: Sendable {
    struct StoredSession {
        var header: SessionHeader
        var owner: String?
        var epoch: Int
        var open = true
    }

    struct NodeRecord {
        var location: NodeLocation
        /// The liveness proof (a lock held by the node's connection, on PostgreSQL).
        var proofHeld = false
        var lastHeartbeat = ContinuousClock.now
        var declaredDead = false
        /// Its heartbeats no longer reach the store (``InMemoryCluster/crash(_:)``).
        var silenced = false
    }

    struct State {
        var nodes: [String: NodeRecord] = [:]
        var sessions: [String: StoredSession] = [:]
        var order: [String] = []
        var entries: [String: [JournalEntry]] = [:]
        var seats: [String: String] = [:]
    }

    let state = LockedValue(State())

    /// An empty cluster.
    public init() {}

    /// The view of node `id`, whose clients are sent to `publicURL` (by default
    /// `ws://front/node/<id>/ws`).
    public func node(_ id: String, publicURL: String? = nil, internalURL: String? = nil) -> Node {
        let location = NodeLocation(nodeId: id, publicURL: publicURL ?? "ws://front/node/\(id)/ws", internalURL: internalURL)
        state.withLock { state in
            if state.nodes[id] == nil { state.nodes[id] = NodeRecord(location: location) }
        }
        return Node(cluster: self, location: location)
    }

    /// Node `id` is reached at these URLs from now on (what its peers, placements and
    /// redirects report; a test learns a server's port only once it listens).
    public func update(_ id: String, publicURL: String? = nil, internalURL: String? = nil) {
        state.withLock { state in
            if let publicURL { state.nodes[id]?.location.publicURL = publicURL }
            if let internalURL { state.nodes[id]?.location.internalURL = internalURL }
        }
    }

    /// Node `id` crashed, as far as the store can tell: its liveness proof is gone at once (as a
    /// database connection's locks are when its process is killed) and its heartbeats no longer
    /// arrive; nothing else changes until a peer notices. (If the node is in fact still running —
    /// a hung process that wakes up — its next heartbeat after being declared dead says so.)
    public func crash(_ id: String) {
        state.withLock { state in
            state.nodes[id]?.proofHeld = false
            state.nodes[id]?.silenced = true
        }
    }

    /// The journal entries of a session, in the order they were stored.
    public func entries(of sessionId: String) -> [JournalEntry] { state.withLock { $0.entries[sessionId] ?? [] } }

    /// The node that owns a session now, and its epoch.
    public func owner(of sessionId: String) -> (node: String?, epoch: Int)? {
        state.withLock { state in state.sessions[sessionId].map { ($0.owner, $0.epoch) } }
    }

    /// One node's view of the cluster.
    public final class Node: RecoverableJournal, SessionDirectory, NodeRegistry {
        let cluster: InMemoryCluster
        /// This node.
        public let location: NodeLocation
        private let epochs = LockedValue<[String: Int]>([:])

        init(cluster: InMemoryCluster, location: NodeLocation) {
            self.cluster = cluster
            self.location = location
        }

        public var local: NodeLocation { location }
        private var id: String { location.nodeId }

        private func hold(_ sessionId: String, epoch: Int) { epochs.withLock { $0[sessionId] = epoch } }

        private func placement(_ stored: StoredSession, _ state: State) -> SessionPlacement {
            let owner = stored.owner.flatMap { id -> NodeLocation? in
                guard let node = state.nodes[id], !node.declaredDead else { return nil }
                return node.location
            }
            return SessionPlacement(sessionId: stored.header.sessionId, owner: owner)
        }

        // MARK: SessionJournal

        public func opened(_ header: SessionHeader) async throws {
            let held = epochs.withLock { $0[header.sessionId] }
            let epoch = try cluster.state.withLock { state -> Int in
                guard let stored = state.sessions[header.sessionId] else {
                    state.sessions[header.sessionId] = StoredSession(header: header, owner: id, epoch: 1)
                    state.order.append(header.sessionId)
                    return 1
                }
                guard stored.owner == id, held == nil || stored.epoch == held else {
                    throw JournalFailure.fenced(sessionId: header.sessionId)
                }
                return stored.epoch
            }
            if held == nil { hold(header.sessionId, epoch: epoch) }
        }

        public func append(_ entry: JournalEntry) async throws {
            let held = epochs.withLock { $0[entry.sessionId] }
            try cluster.state.withLock { state in
                guard let stored = state.sessions[entry.sessionId], stored.owner == id, stored.epoch == held else {
                    throw JournalFailure.fenced(sessionId: entry.sessionId)
                }
                state.entries[entry.sessionId, default: []].append(entry)
            }
        }

        public func closed(sessionId: String) async {
            cluster.state.withLock { state in
                guard state.sessions[sessionId]?.owner == id else { return }
                state.sessions[sessionId]?.open = false
                for (user, session) in state.seats where session == sessionId { state.seats[user] = nil }
            }
        }

        public func openSessions() async throws -> [SessionHeader] {
            let owned = cluster.state.withLock { state in
                state.order.compactMap { sessionId -> (SessionHeader, Int)? in
                    guard let stored = state.sessions[sessionId], stored.open, stored.owner == id else { return nil }
                    return (stored.header, stored.epoch)
                }
            }
            for (header, epoch) in owned { hold(header.sessionId, epoch: epoch) }
            return owned.map(\.0)
        }

        public func entries(sessionId: String) async throws -> [JournalEntry] { cluster.entries(of: sessionId) }

        // MARK: SessionDirectory

        public func register(_ header: SessionHeader) async throws -> Bool {
            let listed = cluster.state.withLock { state -> Bool in
                if let code = header.joinCode,
                   state.sessions.values.contains(where: { $0.open && $0.header.joinCode == code }) { return false }
                state.sessions[header.sessionId] = StoredSession(header: header, owner: id, epoch: 1)
                state.order.append(header.sessionId)
                return true
            }
            if listed { hold(header.sessionId, epoch: 1) }
            return listed
        }

        public func locate(joinCode: String) async throws -> SessionPlacement? {
            cluster.state.withLock { state in
                state.sessions.values.first { $0.open && $0.header.joinCode == joinCode }.map { placement($0, state) }
            }
        }

        public func locate(sessionId: String) async throws -> SessionPlacement? {
            cluster.state.withLock { state in
                state.sessions[sessionId].flatMap { $0.open ? placement($0, state) : nil }
            }
        }

        public func seat(of userId: String) async throws -> SessionPlacement? {
            cluster.state.withLock { state in
                guard let sessionId = state.seats[userId], let stored = state.sessions[sessionId], stored.open else { return nil }
                return placement(stored, state)
            }
        }

        public func reserveSeat(userId: String, sessionId: String) async throws -> SessionPlacement? {
            cluster.state.withLock { state in
                if let other = state.seats[userId], other != sessionId, let stored = state.sessions[other], stored.open {
                    return placement(stored, state)
                }
                state.seats[userId] = sessionId
                return nil
            }
        }

        public func releaseSeat(userId: String, sessionId: String) async throws {
            cluster.state.withLock { state in
                if state.seats[userId] == sessionId { state.seats[userId] = nil }
            }
        }

        // MARK: NodeRegistry

        public func join() async throws {
            try cluster.state.withLock { state in
                if let record = state.nodes[id], record.proofHeld { throw NodeRegistryError.nodeIdInUse(id) }
                var record = state.nodes[id] ?? NodeRecord(location: location)
                record.proofHeld = true
                record.declaredDead = false
                record.silenced = false
                record.lastHeartbeat = .now
                state.nodes[id] = record
            }
        }

        public func heartbeat() async throws -> Bool {
            cluster.state.withLock { state in
                guard let record = state.nodes[id], !record.declaredDead else { return false }
                guard !record.silenced else { return true }
                state.nodes[id]?.lastHeartbeat = .now
                // A lost proof (the database restarted) is taken back by the next heartbeat.
                state.nodes[id]?.proofHeld = true
                return true
            }
        }

        public func deadNodes(timeout: Duration, grace: Duration) async throws -> [String] {
            cluster.state.withLock { state in
                let now = ContinuousClock.now
                var dead: [String] = []
                for (other, record) in state.nodes where other != id && !record.declaredDead {
                    let silent = now - record.lastHeartbeat
                    guard (!record.proofHeld && silent > grace) || silent > timeout else { continue }
                    state.nodes[other]?.declaredDead = true
                    dead.append(other)
                }
                return dead.sorted()
            }
        }

        public func claimSessions(limit: Int) async throws -> [SessionHeader] {
            let claimed = cluster.state.withLock { state -> [(SessionHeader, Int)] in
                var claimed: [(SessionHeader, Int)] = []
                for sessionId in state.order where claimed.count < limit {
                    guard var stored = state.sessions[sessionId], stored.open else { continue }
                    if let owner = stored.owner, state.nodes[owner]?.declaredDead != true { continue }
                    stored.owner = id
                    stored.epoch += 1
                    state.sessions[sessionId] = stored
                    claimed.append((stored.header, stored.epoch))
                }
                return claimed
            }
            for (header, epoch) in claimed { hold(header.sessionId, epoch: epoch) }
            return claimed.map(\.0)
        }

        public func handOver(sessionIds: [String]) async throws {
            cluster.state.withLock { state in
                for sessionId in sessionIds where state.sessions[sessionId]?.owner == id {
                    state.sessions[sessionId]?.owner = nil
                    state.sessions[sessionId]?.epoch += 1
                }
            }
        }

        public func peers() async throws -> [NodeLocation] {
            cluster.state.withLock { state in
                state.nodes.values.filter { $0.location.nodeId != id && $0.proofHeld && !$0.declaredDead }
                    .map(\.location).sorted { $0.nodeId < $1.nodeId }
            }
        }

        public func leave() async {
            cluster.state.withLock { $0.nodes[id]?.proofHeld = false }
        }
    }
}
