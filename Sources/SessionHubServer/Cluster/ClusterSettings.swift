import NIOCore

/// How a node takes part in a cluster (PostgreSQL storage with several nodes).
public struct ClusterSettings: Sendable, Equatable {
    /// How often the node proves it is alive and looks for dead peers.
    public var heartbeatInterval: TimeAmount = .milliseconds(500)
    /// How long a node may go without proving it is alive before its peers declare it dead and
    /// adopt its sessions (a crashed node's liveness proof, its database connection's lock, is
    /// gone at once; this bounds the detection of a hung node).
    public var livenessTimeout: TimeAmount = .seconds(5)
    /// Sessions claimed per database round trip when adopting a dead node's sessions.
    public var claimBatchSize = 50
    /// The most journal commits one node keeps in flight at once on PostgreSQL, each on a
    /// connection of its own. Every node's commits share the database's one WAL flush: a node
    /// alone commits sooner with several in flight, while nodes that share a database with peers
    /// wait less in its flush queue with one each (docs/CLUSTER.md, "Settings").
    public var journalCommitsInFlight = 4

    /// The defaults.
    public init() {}
}
