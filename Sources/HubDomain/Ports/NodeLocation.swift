/// A node of the cluster as clients reach it.
public struct NodeLocation: Sendable, Equatable, Hashable, Codable {
    /// The node's id (`--node-id`).
    public var nodeId: String
    /// The WebSocket URL clients are sent to for this node (`--public-url`), e.g.
    /// `ws://front.example:8080/node/n2/ws`.
    public var publicURL: String

    /// Creates a location.
    public init(nodeId: String, publicURL: String) {
        self.nodeId = nodeId
        self.publicURL = publicURL
    }
}
