import WebSocket

/// Per-route settings for an accepted WebSocket connection.
public struct WebSocketRouteOptions: Sendable {
    /// Protocol limits (message size, fragments).
    public var configuration: WebSocketConfiguration
    /// Whether permessage-deflate may be negotiated on this route.
    public var allowsCompression: Bool
    /// Keepalive and close timing.
    public var timeouts: WebSocketTimeouts
    /// Slow-reader policy.
    public var backpressure: WebSocketBackpressure
    /// Whether the endpoint authenticates its connections after the upgrade (by calling
    /// ``WebSocketSocket/authenticate(as:limit:)``). Until it does, the connection counts against
    /// ``ConnectionPolicy/maxUnauthenticatedConnectionsPerAddress``; when false it
    /// stops counting there at the upgrade. Default false.
    public var awaitsAuthentication: Bool

    /// Creates options.
    public init(
        configuration: WebSocketConfiguration = .default,
        allowsCompression: Bool = true,
        timeouts: WebSocketTimeouts = .default,
        backpressure: WebSocketBackpressure = .default,
        awaitsAuthentication: Bool = false
    ) {
        self.configuration = configuration
        self.allowsCompression = allowsCompression
        self.timeouts = timeouts
        self.backpressure = backpressure
        self.awaitsAuthentication = awaitsAuthentication
    }
}
