/// Per-connection limits of the `/ws` endpoint (each with a default and a test).
public struct HubConnectionLimits: Sendable {
    /// Seconds a connection without a token on the upgrade has to send `auth`. Default 10.
    public var authTimeoutSeconds: Int64 = 10
    /// Requests of any kind: burst and per-second rate. Default 40 / 20.
    public var requestBurst = 40
    public var requestsPerSecond = 20.0
    /// `say`, `recast`, `acceptRecast`: burst and per-second rate. Default 10 / 5.
    public var lineBurst = 10
    public var linesPerSecond = 5.0
    /// Join attempts (`join` and `resume`): burst and per-minute rate. Default 5 / 10.
    public var joinBurst = 5
    public var joinsPerMinute = 10.0
    /// Error replies tolerated: burst and per-second refill; beyond, close 1008. Default 20 / 1.
    public var errorBurst = 20
    public var errorsPerSecond = 1.0
    /// Largest client message, bytes: the `/ws` endpoint's WebSocket frame and message limit,
    /// so a larger one is refused from its frame header with close 1009, before it is buffered.
    /// Default 16 KiB.
    public var maxMessageBytes = 16 * 1024
    /// Authenticated `/ws` connections one user may hold at once; the one beyond gets the error
    /// `too_many_connections` and close 1008 (the open ones are left alone). Default 8.
    public var maxConnectionsPerUser = 8

    /// The defaults.
    public init() {}
}
