import NIOCore

/// Keepalive and close timing of a connection.
public struct WebSocketTimeouts: Sendable, Hashable {
    /// When nothing was received for this long, send a ping. Default 30 s.
    public var pingInterval: TimeAmount
    /// When nothing at all (not even a pong) was received for two ping intervals, the connection
    /// is considered dead and closed (1001 is sent, best effort). Derived: 2 × `pingInterval`.
    public var idleTimeout: TimeAmount { .nanoseconds(pingInterval.nanoseconds * 2) }
    /// How long to wait for the peer's close frame after sending ours before closing TCP. Default 5 s.
    public var closeTimeout: TimeAmount

    /// Creates timeouts.
    public init(pingInterval: TimeAmount = .seconds(30), closeTimeout: TimeAmount = .seconds(5)) {
        self.pingInterval = pingInterval
        self.closeTimeout = closeTimeout
    }

    /// The defaults.
    public static let `default` = WebSocketTimeouts()
}
