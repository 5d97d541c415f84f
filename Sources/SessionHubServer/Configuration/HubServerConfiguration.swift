import HubDomain
import NIOCore
import WebSocketTransport

/// Settings of a running hub, from the command line or a test.
public struct HubServerConfiguration: Sendable {
    /// Address to bind. Default 127.0.0.1 (loopback only).
    public var host: String
    /// Port; 0 picks a free one. Default 8080.
    public var port: Int
    /// Serve the `/echo` diagnostic endpoint. Default off.
    public var enableEcho: Bool
    /// Serve the `/room/<name>` raw relay used by the peer benchmarks. Default off.
    public var enableRooms: Bool
    /// Largest WebSocket message accepted, after decompression (close 1009 beyond). Default 1 MiB.
    public var maxMessageSize: Int
    /// Whether permessage-deflate may be negotiated. Default on.
    public var compression: Bool
    /// Keepalive and close timing.
    public var timeouts: WebSocketTimeouts
    /// Event loop threads; default the number of cores.
    public var threads: Int
    /// The HS256 secret tokens are signed with.
    public var secret: [UInt8]
    /// A directory of extra scenario files (`*.json`), or nil for the built-in ones only.
    public var scenariosDirectory: String?
    /// Session limits and timings (grace window, text lengths, ...).
    public var hub: HubConfiguration
    /// Per-connection limits of `/ws` (auth timeout, rate limits).
    public var connectionLimits: HubConnectionLimits
    /// Seconds between two runs of the storage upkeep (retrying failed history writes).
    public var maintenanceIntervalSeconds = 30
    /// Seconds between two heap trims (``HeapTrimmer``: freed memory returned to the system, so
    /// RSS falls back after a burst); 0 turns them off. Default 10.
    public var heapTrimIntervalSeconds = 10
    /// Open TCP connections beyond which new ones are closed on accept; nil: the open-file limit
    /// less a reserve (``WebSocketTransport/WebSocketServerConfiguration/maxConnections``).
    public var maxConnections: Int?

    /// Creates a configuration with the documented defaults.
    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        enableEcho: Bool = false,
        enableRooms: Bool = false,
        maxMessageSize: Int = 1 << 20,
        compression: Bool = true,
        timeouts: WebSocketTimeouts = .default,
        threads: Int = System.coreCount,
        secret: [UInt8],
        scenariosDirectory: String? = nil,
        hub: HubConfiguration = HubConfiguration(),
        connectionLimits: HubConnectionLimits = HubConnectionLimits()
    ) {
        self.host = host
        self.port = port
        self.enableEcho = enableEcho
        self.enableRooms = enableRooms
        self.maxMessageSize = maxMessageSize
        self.compression = compression
        self.timeouts = timeouts
        self.threads = max(1, threads)
        self.secret = secret
        self.scenariosDirectory = scenariosDirectory
        self.hub = hub
        self.connectionLimits = connectionLimits
    }
}
