/// What happened when an operator removed a participant.
public struct OperatorRemoval: Sendable, Equatable {
    /// The user removed.
    public var userId: String
    /// The host afterwards (changes when the host was removed); nil when nobody is left.
    public var hostId: String?
    /// True when the removed participant was the last one present, so the session ended
    /// (cause `abandoned`).
    public var sessionEnded: Bool

    /// Creates the outcome.
    public init(userId: String, hostId: String?, sessionEnded: Bool) {
        self.userId = userId
        self.hostId = hostId
        self.sessionEnded = sessionEnded
    }
}
