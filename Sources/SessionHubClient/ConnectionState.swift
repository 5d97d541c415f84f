/// Where a ``SessionHubClient``'s connection stands.
public enum ConnectionState: Sendable, Equatable {
    /// Not connected yet.
    case idle
    /// Opening the connection and authenticating.
    case connecting
    /// Authenticated as `userId`.
    case connected(userId: String)
    /// Closed, by either side, with the close code (nil: no close frame) and reason.
    case closed(code: Int?, reason: String)
}
