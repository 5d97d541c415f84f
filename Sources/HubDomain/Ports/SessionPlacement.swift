/// Where an open session of the cluster lives.
public struct SessionPlacement: Sendable, Equatable {
    /// The session.
    public var sessionId: String
    /// The node that owns it; nil while no live node does (its node died or handed it over and
    /// no other node has adopted it yet).
    public var owner: NodeLocation?

    /// Creates a placement.
    public init(sessionId: String, owner: NodeLocation?) {
        self.sessionId = sessionId
        self.owner = owner
    }
}
