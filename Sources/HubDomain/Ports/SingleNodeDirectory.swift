/// The directory of a hub that is the whole cluster: everything is in the hub's own registry,
/// so there is nothing to list and nothing elsewhere.
public struct SingleNodeDirectory: SessionDirectory {
    public let local: NodeLocation

    /// A directory for the node at `local` (its URL is only shown, never used to redirect).
    public init(local: NodeLocation = NodeLocation(nodeId: "local", publicURL: "")) {
        self.local = local
    }

    public func register(_ header: SessionHeader) async throws -> Bool { true }
    public func locate(joinCode: String) async throws -> SessionPlacement? { nil }
    public func locate(sessionId: String) async throws -> SessionPlacement? { nil }
    public func seat(of userId: String) async throws -> SessionPlacement? { nil }
    public func reserveSeat(userId: String, sessionId: String) async throws -> SessionPlacement? { nil }
    public func releaseSeat(userId: String, sessionId: String) async throws {}
}
