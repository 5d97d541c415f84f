#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocket

/// Everything the WebSocket server needs to listen and to judge handshakes.
public struct WebSocketServerConfiguration: Sendable {
    /// Address to bind. Default 127.0.0.1.
    public var host: String
    /// Port to bind; 0 picks a free one. Default 8080.
    public var port: Int
    /// Listen backlog. Default 4096.
    public var backlog: Int32
    /// RFC 6455 handshake rules and header limits.
    public var handshake: ServerHandshakeConfiguration
    /// What permessage-deflate may be negotiated (routes may still refuse it).
    public var compression: PerMessageDeflateConfiguration
    /// Largest plain-HTTP request body accepted (413 beyond). Default 1 MiB.
    public var maxHTTPBodySize: Int
    /// Open TCP connections (WebSocket and plain HTTP) beyond which a new one is closed as soon
    /// as it is accepted. nil (the default): the process's open-file limit less a reserve of 128
    /// for the database, logs and the listener — so the process never runs out of descriptors,
    /// where `accept` would fail in a loop.
    public var maxConnections: Int?
    /// Deadlines of the HTTP phase and caps on connections per client address.
    public var connectionPolicy: ConnectionPolicy

    /// Creates a configuration with the documented defaults.
    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        backlog: Int32 = 4096,
        handshake: ServerHandshakeConfiguration = .default,
        compression: PerMessageDeflateConfiguration = .default,
        maxHTTPBodySize: Int = 1 << 20,
        maxConnections: Int? = nil,
        connectionPolicy: ConnectionPolicy = ConnectionPolicy()
    ) {
        self.host = host
        self.port = port
        self.backlog = backlog
        self.handshake = handshake
        self.compression = compression
        self.maxHTTPBodySize = maxHTTPBodySize
        self.maxConnections = maxConnections
        self.connectionPolicy = connectionPolicy
    }

    /// ``maxConnections``, or what the open-file limit allows.
    public var effectiveMaxConnections: Int {
        if let maxConnections { return max(1, maxConnections) }
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(Int32.max) else { return 1 << 20 }
        return max(16, Int(clamping: limit.rlim_cur) - 128)
    }
}
