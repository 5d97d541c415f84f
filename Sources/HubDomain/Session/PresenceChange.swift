/// What changed in a session's membership.
public struct PresenceChange: Sendable, Equatable, Codable {
    /// What happened.
    public enum Kind: String, Sendable, Codable {
        case joined, left, disconnected, reconnected, expired, removed
    }
    /// Whom it concerns.
    public var userId: String
    public var kind: Kind

    /// Creates a change.
    public init(userId: String, kind: Kind) {
        self.userId = userId
        self.kind = kind
    }
}
