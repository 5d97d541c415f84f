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

    /// Creates options.
    public init(
        configuration: WebSocketConfiguration = .default,
        allowsCompression: Bool = true,
        timeouts: WebSocketTimeouts = .default,
        backpressure: WebSocketBackpressure = .default
    ) {
        self.configuration = configuration
        self.allowsCompression = allowsCompression
        self.timeouts = timeouts
        self.backpressure = backpressure
    }
}
