import NIOCore
import NIOSSL
import WebSocket

/// How the client connects and what it offers.
public struct WebSocketClientConfiguration: Sendable {
    /// Protocol limits for what the server sends.
    public var configuration: WebSocketConfiguration
    /// permessage-deflate offer; `isEnabled = false` offers nothing.
    public var compression: PerMessageDeflateConfiguration
    /// Subprotocols to offer.
    public var subprotocols: [String]
    /// Extra request headers (e.g. Authorization).
    public var headers: [(name: String, value: String)]
    /// Keepalive and close timing.
    public var timeouts: WebSocketTimeouts
    /// Slow-reader policy for our side.
    public var backpressure: WebSocketBackpressure
    /// TCP connect plus handshake deadline. Default 10 s.
    public var connectTimeout: TimeAmount
    /// TLS for `wss://` URLs: by default the system's trust roots and full certificate and
    /// host-name verification. Unused for `ws://`.
    public var tls: TLSConfiguration

    /// Creates a configuration with the documented defaults.
    public init(
        configuration: WebSocketConfiguration = .default,
        compression: PerMessageDeflateConfiguration = .default,
        subprotocols: [String] = [],
        headers: [(name: String, value: String)] = [],
        timeouts: WebSocketTimeouts = .default,
        backpressure: WebSocketBackpressure = .default,
        connectTimeout: TimeAmount = .seconds(10),
        tls: TLSConfiguration = .makeClientConfiguration()
    ) {
        self.configuration = configuration
        self.compression = compression
        self.subprotocols = subprotocols
        self.headers = headers
        self.timeouts = timeouts
        self.backpressure = backpressure
        self.connectTimeout = connectTimeout
        self.tls = tls
    }
}
