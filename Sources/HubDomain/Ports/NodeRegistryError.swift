/// Why a node could not join its cluster.
public enum NodeRegistryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another live process runs with this node id.
    case nodeIdInUse(String)

    public var description: String {
        switch self {
        case .nodeIdInUse(let id): "node id \(id) is in use by another running node"
        }
    }
}
