import HubDomain

/// What a node of a cluster shares with its peers through the database: the registry of nodes
/// and session ownership, and the directory of sessions, join codes and seats.
public struct ClusterStorage: Sendable {
    /// Nodes, liveness, claims and handovers.
    public var registry: any NodeRegistry
    /// Where sessions, join codes and seats are.
    public var directory: any SessionDirectory

    /// Bundles the two.
    public init(registry: any NodeRegistry, directory: any SessionDirectory) {
        self.registry = registry
        self.directory = directory
    }
}
