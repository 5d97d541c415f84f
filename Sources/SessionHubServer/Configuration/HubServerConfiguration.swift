import HubDomain
import HubStorage
import NIOCore
import WebSocket
import WebSocketTransport

/// Settings of a running hub, from the command line or a test: the root of the settings tree.
///
/// Every limit and timeout below (and in the structs it holds) is listed once in
/// ``SettingsCatalog`` with its key; the default written on the property here (or in its layer's
/// struct) is the only default.
public struct HubServerConfiguration: Sendable {
    /// Address to bind. Default 127.0.0.1 (loopback only).
    public var host: String
    /// Port; 0 picks a free one. Default 8080.
    public var port: Int
    /// Serve the `/echo` diagnostic endpoint. Default off.
    public var enableEcho: Bool
    /// Serve the `/room/<name>` raw relay used by the peer benchmarks. Default off.
    public var enableRooms: Bool
    /// Largest WebSocket message accepted on `/echo` and `/room/<name>`, after decompression
    /// (close 1009 beyond). Default: ``WebSocket/WebSocketConfiguration``'s, 1 MiB. `/ws` has the
    /// hub's own ``HubConnectionLimits/maxMessageBytes``, the dashboard feed its own limit.
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
    /// Bounds of the operator dashboard's live feed.
    public var dashboard = DashboardFeedSettings()
    /// Heartbeat, liveness timeout and claim batches of a cluster node (PostgreSQL storage).
    public var cluster = ClusterSettings()
    /// Time rules of bearer tokens (clock skew allowed for `iat`, longest lifetime).
    public var tokenPolicy = TokenPolicy()
    /// The app's identity provider, whose RS256 and ES256 tokens the hub accepts besides its own
    /// HS256 ones (JWKS file or URL, issuer, audience, refresh); off by default.
    public var identityProvider = IdentityProviderSettings()
    /// What the hub offers browsers: CORS on the JSON API, the web player's development sign-in.
    public var web = WebSettings()
    /// The least time between two commits of the local journal, log or SQLite (group commit):
    /// appends that arrive meanwhile share the next commit. 0 commits as soon as the last commit
    /// ends. Default 1 ms: at 1,500 lines/s on the SQLite journal it cut the hub's CPU by a tenth
    /// and its p99 by half (fewer, larger transactions), for at most 1 ms more before a line is
    /// broadcast.
    public var journalCommitInterval: TimeAmount = .milliseconds(1)
    /// Word states (SM-2, one per learner and word) the SQLite store keeps in memory, so that an
    /// ended session reads a learner's stored states only when it meets a word not seen (docs/STORAGE.md);
    /// 0 keeps none. Size it to the words of the learners who play within a few hours of each
    /// other: below that the cache drops learners before they come back.
    public var wordReviewCacheCapacity = SQLiteStore.defaultWordReviewCacheCapacity
    /// Seconds between two runs of the storage upkeep (retrying failed history writes). Default 30.
    public var maintenanceIntervalSeconds = 30
    /// ``drainTimeoutSeconds`` unless configured otherwise.
    public static let defaultDrainTimeoutSeconds = 5
    /// Seconds a graceful shutdown waits for close handshakes once every session was ended and
    /// saved. Default ``defaultDrainTimeoutSeconds``.
    public var drainTimeoutSeconds = Self.defaultDrainTimeoutSeconds
    /// Output queueing of a connection that reads slowly (watermarks, the slow-consumer cut-off).
    public var backpressure = WebSocketBackpressure.default
    /// Opening-handshake rules and header limits of every WebSocket endpoint.
    public var handshake = ServerHandshakeConfiguration.default
    /// Seconds between two heap trims (``HeapTrimmer``: freed memory returned to the system, so
    /// RSS falls back after a burst); 0 turns them off. Default 10.
    public var heapTrimIntervalSeconds = 10
    /// Open TCP connections beyond which new ones are closed on accept; nil: the open-file limit
    /// less a reserve (``WebSocketTransport/WebSocketServerConfiguration/maxConnections``).
    public var maxConnections: Int?
    /// Deadlines of the HTTP phase (request head, body, keep-alive idle), caps on connections
    /// per client address, and the trusted proxies whose `X-Forwarded-For` is believed.
    public var connectionPolicy = ConnectionPolicy()
    /// Largest request body of the JSON API (`/api/...`, `/admin/...`), in bytes; 413 beyond,
    /// from `Content-Length` before any of it is read. Default 64 KiB (the largest real body, a
    /// profile update, is under 4 KiB). Other routes keep the server's 1 MiB.
    public var maxAPIBodySize = 64 * 1024
    /// Largest page of whole sessions (transcripts included) that `GET /api/history?full=1`
    /// answers; a larger `limit` is refused (400). Default 20 (the summaries' largest page is 100).
    public var maxFullHistoryPage = 20

    /// Creates a configuration with the documented defaults.
    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        enableEcho: Bool = false,
        enableRooms: Bool = false,
        maxMessageSize: Int = WebSocketConfiguration.default.maxMessageSize,
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
