/// The nodes of a cluster and who owns which open session: how a node joins, proves it is
/// alive, finds the dead, and takes their sessions. The storage layer implements it on
/// PostgreSQL (a session-level advisory lock held by the node's connection plus a heartbeat row
/// judged on the database's clock); ``InMemoryCluster`` models it in memory.
///
/// Ownership is what fences the journal: a claim bumps a session's epoch, so the node that held
/// it before can no longer write to it (``JournalFailure/fenced(sessionId:)``).
public protocol NodeRegistry: Sendable {
    /// Joins the cluster as this node: takes its liveness proof and records it alive.
    /// - Throws: ``NodeRegistryError/nodeIdInUse(_:)`` when a live process already runs as this node.
    func join() async throws

    /// Proves this node is still alive. Returns false when the cluster has declared it dead
    /// (its sessions may belong to others now): the node must let go of every session.
    func heartbeat() async throws -> Bool

    /// Nodes that stopped proving they are alive for `timeout` (hung, cut off), or whose liveness
    /// proof is gone and that have been silent for `grace` (crashed: a node that merely
    /// reconnected after a database restart takes its proof back within a heartbeat), marked
    /// dead by this call; never this node.
    func deadNodes(timeout: Duration, grace: Duration) async throws -> [String]

    /// Takes up to `limit` open sessions that no live node owns — their node was declared dead,
    /// or handed them over — for this node, bumping each one's epoch (each goes to exactly one
    /// claimer). The journal of this node then writes them at the new epoch.
    func claimSessions(limit: Int) async throws -> [SessionHeader]

    /// Gives these sessions of this node up to nobody (a rolling upgrade): their epoch is bumped
    /// so this node can no longer write to them, and live peers claim them.
    func handOver(sessionIds: [String]) async throws

    /// The other nodes alive now.
    func peers() async throws -> [NodeLocation]

    /// Leaves the cluster: drops the liveness proof at once (peers need not wait for a timeout).
    func leave() async
}

