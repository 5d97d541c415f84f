/// A node's standing in its cluster, as a state machine: each event returns what the node must
/// do (``Action``), so the rules are tested without a database or clock (``ClusterNode`` runs it).
///
/// - A node that **joined** takes players and adopts the sessions of dead peers.
/// - A node that **cannot reach the database** stops taking new players (503 on `/readyz`,
///   `storage_unavailable` for new sessions) but keeps its live sessions: if the database comes
///   back before its peers declared it dead, nothing was lost; if they did, its writes are fenced.
/// - A node the cluster **declared dead** (it hung, or was cut off, longer than the liveness
///   timeout) lets go of every session at once — their new owners have them — and joins again.
/// - A node that **leaves** (SIGTERM) takes no new players and adopts nothing more.
struct ClusterMembership: Sendable, Equatable {
    enum State: Sendable, Equatable {
        /// Not a member yet (starting, or rejoining after an eviction).
        case joining
        /// A member in good standing.
        case member
        /// A member that cannot reach the database.
        case unreachable
        /// Leaving the cluster (draining).
        case leaving
    }

    enum Action: Sendable, Equatable {
        /// Prove the node is alive (then report ``heartbeat(alive:)`` or ``heartbeatFailed()``).
        case heartbeat
        /// Take new players again / no longer (with the reason `/readyz` gives).
        case admit(Bool, reason: String?)
        /// Look for dead peers and orphaned sessions, and adopt them.
        case sweep
        /// Let go of every live session without ending it: others own them now.
        case relinquishAll
        /// Join the cluster (again).
        case join
    }

    private(set) var state = State.joining

    /// The heartbeat interval passed.
    mutating func tick() -> [Action] {
        switch state {
        case .joining: [.join]
        case .member, .unreachable: [.heartbeat]
        case .leaving: []
        }
    }

    /// Joined (or rejoined) the cluster.
    mutating func joined() -> [Action] {
        guard state == .joining else { return [] }
        state = .member
        return [.admit(true, reason: nil), .sweep]
    }

    /// A join failed (the database is unreachable, or another process holds this node id).
    mutating func joinFailed() -> [Action] {
        state == .joining ? [.admit(false, reason: "not_registered")] : []
    }

    /// A heartbeat reached the database; `alive` is false when the cluster declared this node dead.
    mutating func heartbeat(alive: Bool) -> [Action] {
        switch state {
        case .joining, .leaving:
            return []
        case .member, .unreachable:
            guard alive else {
                state = .joining
                return [.admit(false, reason: "evicted"), .relinquishAll, .join]
            }
            let wasUnreachable = state == .unreachable
            state = .member
            return wasUnreachable ? [.admit(true, reason: nil), .sweep] : [.sweep]
        }
    }

    /// A heartbeat could not reach the database.
    mutating func heartbeatFailed() -> [Action] {
        guard state == .member else { return [] }
        state = .unreachable
        return [.admit(false, reason: "storage_unreachable")]
    }

    /// The node is shutting down.
    mutating func leave() -> [Action] {
        guard state != .leaving else { return [] }
        state = .leaving
        return [.admit(false, reason: "draining")]
    }
}
