/// A node of the cluster as clients and its peers reach it.
public struct NodeLocation: Sendable, Equatable, Hashable, Codable {
    /// The node's id (`--node-id`).
    public var nodeId: String
    /// The WebSocket URL clients are sent to for this node (`--public-url`), e.g.
    /// `ws://front.example:8080/node/n2/ws`.
    public var publicURL: String
    /// The HTTP base URL the other nodes reach this node's own API at (`--internal-url`), e.g.
    /// `http://10.0.0.12:8080`: where an operator's request about a session it owns is sent.
    /// Nil when unknown (a single node).
    public var internalURL: String?

    /// Creates a location.
    public init(nodeId: String, publicURL: String, internalURL: String? = nil) {
        self.nodeId = nodeId
        self.publicURL = publicURL
        self.internalURL = internalURL
    }
}
