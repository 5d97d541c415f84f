/// Where a ``SessionHubClient``'s connection stands.
public enum ConnectionState: Sendable, Equatable {
    /// Not connected yet.
    case idle
    /// Opening the connection and authenticating.
    case connecting
    /// Authenticated as `userId` (after a drop: and back in the session, if it still had one).
    case connected(userId: String)
    /// The connection dropped; attempt `attempt` to come back is under way
    /// (``ReconnectPolicy``).
    case reconnecting(attempt: Int)
    /// Closed, by either side, with the close code (nil: no close frame) and reason.
    case closed(code: Int?, reason: String)
}
