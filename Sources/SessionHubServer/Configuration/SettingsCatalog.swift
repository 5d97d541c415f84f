/// Every limit and timeout of the hub, in one list: the settings tree.
///
/// Each entry names a property of ``HubServerConfiguration`` (or of the struct of its layer that it
/// holds) whose own default is the setting's default. `sessionhub serve` loads values from flags,
/// `SESSIONHUB_*` environment variables and an optional JSON file (``SettingsLoader``);
/// `sessionhub settings` prints the table, which docs/PROTOCOL.md §11 and the README carry
/// verbatim (a test compares them).
public enum SettingsCatalog {
    /// The settings, grouped by the first component of their keys.
    public static let all: [Setting] = server + http + webSocket + connection + session + join + token + dashboard + cluster

    /// The one setting with `key`, if any.
    public static func setting(_ key: String) -> Setting? { all.first { $0.key == key } }

    static let server: [Setting] = [
        Setting("server.maxConnections", \.maxConnections, .optionalInteger, unit: "connections", range: 1...10_000_000,
                summary: "Open TCP connections (WebSocket and plain HTTP) beyond which a new one is closed on accept.",
                onBreach: "connection closed at once; `sessionhub_connections_refused_total`",
                derivedDefault: "open-file limit − 128"),
        Setting("server.maxConnectionsPerAddress", \.connectionPolicy.maxConnectionsPerAddress, .integer, unit: "connections",
                range: 1...10_000_000,
                summary: "Open connections from one client address (behind a `--trusted-proxy`: the last `X-Forwarded-For` hop).",
                onBreach: "closed on accept (429 via a trusted proxy); `sessionhub_connections_refused_total{reason=\"per_address\"}`"),
        Setting("server.maxUnauthenticatedPerAddress", \.connectionPolicy.maxUnauthenticatedConnectionsPerAddress, .integer,
                unit: "connections", range: 1...10_000_000,
                summary: "Connections from one client address still in the HTTP phase or not yet authenticated on `/ws`.",
                onBreach: "refused like the above; `reason=\"unauthenticated_per_address\"`"),
        Setting("server.drainTimeout", \.drainTimeoutSeconds, .wholeSeconds, unit: "seconds", range: 0...3600,
                summary: "On SIGTERM, after every session was ended and saved: time left for close handshakes.",
                onBreach: "remaining connections dropped; the process exits"),
        Setting("server.heapTrimInterval", \.heapTrimIntervalSeconds, .wholeSeconds, unit: "seconds", range: 0...86_400,
                summary: "Period of the heap trim that returns freed memory to the system after a burst (0: never).",
                onBreach: "—"),
        Setting("server.journalCommitInterval", \.journalCommitInterval, .seconds, unit: "seconds", range: 0...0.1,
                summary: "Least time between two commits of the SQLite journal: lines arriving meanwhile share one transaction (a line is broadcast once committed).",
                onBreach: "—"),
        Setting("server.maintenanceInterval", \.maintenanceIntervalSeconds, .wholeSeconds, unit: "seconds", range: 1...86_400,
                summary: "Period of the storage upkeep (retrying history writes that failed).",
                onBreach: "—"),
    ]

    static let cluster: [Setting] = [
        Setting("cluster.heartbeatInterval", \.cluster.heartbeatInterval, .seconds, unit: "seconds", range: 0.05...60,
                summary: "How often a cluster node (PostgreSQL storage) proves it is alive and looks for dead peers and sessions to adopt.",
                onBreach: "—"),
        Setting("cluster.livenessTimeout", \.cluster.livenessTimeout, .seconds, unit: "seconds", range: 0.2...3600,
                summary: "Silence after which peers declare a node dead (hung, or cut off from the database) and adopt its sessions; a killed node's lock is gone at once.",
                onBreach: "its sessions are adopted by a peer; its later writes are fenced (`session_moved`)"),
        Setting("cluster.claimBatchSize", \.cluster.claimBatchSize, .integer, unit: "sessions", range: 1...10_000,
                summary: "Sessions a node claims per database round trip when adopting those of a dead peer.",
                onBreach: "—"),
    ]

    static let http: [Setting] = [
        Setting("http.requestHeadTimeout", \.connectionPolicy.requestHeadTimeout, .seconds, unit: "seconds", range: 0.05...3600,
                summary: "Time a request head may take: from accept (later keep-alive requests: from their first byte); a dribble does not extend it.",
                onBreach: "408 after part of a head, else closed silently; `sessionhub_http_timeouts_total{phase=\"head\"}`"),
        Setting("http.requestBodyTimeout", \.connectionPolicy.requestBodyTimeout, .seconds, unit: "seconds", range: 0.05...3600,
                summary: "Time a request body may take after its head.",
                onBreach: "408; `phase=\"body\"`"),
        Setting("http.keepAliveTimeout", \.connectionPolicy.keepAliveTimeout, .seconds, unit: "seconds", range: 0.05...3600,
                summary: "Time a keep-alive connection may wait after a response for its next request.",
                onBreach: "closed silently; `phase=\"idle\"`"),
        Setting("http.maxApiBodySize", \.maxAPIBodySize, .integer, unit: "bytes", range: 1024...Double(1 << 30),
                summary: "Request body of the JSON API (`/api/…`, `/admin/…`).",
                onBreach: "413, from `Content-Length` before reading (chunked: while streaming)"),
        Setting("http.maxFullHistoryPage", \.maxFullHistoryPage, .integer, unit: "sessions", range: 1...100,
                summary: "Whole sessions (transcripts included) per page of `GET /api/history?full=1`.",
                onBreach: "400 `bad_request` (`limit` above it)"),
    ]

    static let webSocket: [Setting] = [
        Setting("websocket.maxMessageSize", \.maxMessageSize, .integer, unit: "bytes", range: 1...Double(1 << 30),
                summary: "Largest message after inflation on the diagnostic endpoints (`/echo`, `/room/<name>`).",
                onBreach: "close 1009, from the frame header before buffering"),
        Setting("websocket.pingInterval", \.timeouts.pingInterval, .seconds, unit: "seconds", range: 0.05...3600,
                summary: "Keepalive tick: a connection silent for a tick is pinged; still silent at the next tick, it is closed.",
                onBreach: "close 1001 `idle timeout`"),
        Setting("websocket.closeTimeout", \.timeouts.closeTimeout, .seconds, unit: "seconds", range: 0.05...600,
                summary: "Wait for the peer's close frame after sending ours.",
                onBreach: "TCP closed"),
        Setting("websocket.writeHighWatermark", \.backpressure.highWatermark, .integer, unit: "bytes", range: 65_536...Double(1 << 30),
                summary: "Unsent output of one connection beyond which it stops being read (NIO's high write-buffer watermark).",
                onBreach: "reading paused until the client catches up"),
        Setting("websocket.maxQueuedBytes", \.backpressure.maxQueuedBytes, .integer, unit: "bytes", range: 0...Double(1 << 32),
                summary: "Output that may queue for a connection that stopped reading, beyond the watermark.",
                onBreach: "close 1008 `slow consumer`"),
        Setting("websocket.maxHeaderCount", \.handshake.maxHeaderCount, .integer, unit: "fields", range: 1...10_000,
                summary: "Header fields of an upgrade request.",
                onBreach: "HTTP 431"),
        Setting("websocket.maxHeaderBytes", \.handshake.maxHeaderBytes, .integer, unit: "bytes", range: 256...Double(1 << 20),
                summary: "Bytes of all header names and values of an upgrade request.",
                onBreach: "HTTP 431"),
    ]

    static let connection: [Setting] = [
        Setting("connection.maxMessageBytes", \.connectionLimits.maxMessageBytes, .integer, unit: "bytes", range: 256...Double(1 << 24),
                summary: "Largest client message on `/ws` (its WebSocket frame and message limit).",
                onBreach: "close 1009, from the frame header before buffering"),
        Setting("connection.maxPerUser", \.connectionLimits.maxConnectionsPerUser, .integer, unit: "connections", range: 1...10_000,
                summary: "Authenticated `/ws` connections one user may hold at once.",
                onBreach: "`too_many_connections`, then close 1008 (open ones untouched)"),
        Setting("connection.authTimeout", \.connectionLimits.authTimeoutSeconds, .wholeSeconds64, unit: "seconds", range: 1...3600,
                summary: "Time a `/ws` connection without a token on the upgrade has to send `auth`.",
                onBreach: "close 1008 `auth_timeout`"),
        Setting("connection.requestBurst", \.connectionLimits.requestBurst, .integer, unit: "requests", range: 1...100_000,
                summary: "Requests of any kind a connection may send at once (token bucket size).",
                onBreach: "`rate_limited`"),
        Setting("connection.requestsPerSecond", \.connectionLimits.requestsPerSecond, .number, unit: "per second", range: 0.01...100_000,
                summary: "Sustained requests of any kind (token bucket refill).",
                onBreach: "`rate_limited`"),
        Setting("connection.lineBurst", \.connectionLimits.lineBurst, .integer, unit: "requests", range: 1...100_000,
                summary: "`say`, `recast` and `acceptRecast` a connection may send at once.",
                onBreach: "`rate_limited`"),
        Setting("connection.linesPerSecond", \.connectionLimits.linesPerSecond, .number, unit: "per second", range: 0.01...100_000,
                summary: "Sustained `say` + `recast` + `acceptRecast`.",
                onBreach: "`rate_limited`"),
        Setting("connection.joinBurst", \.connectionLimits.joinBurst, .integer, unit: "requests", range: 1...100_000,
                summary: "`join` and `resume` attempts a connection may send at once.",
                onBreach: "`rate_limited`"),
        Setting("connection.joinsPerMinute", \.connectionLimits.joinsPerMinute, .number, unit: "per minute", range: 0.01...1_000_000,
                summary: "Sustained `join` + `resume` attempts of one connection.",
                onBreach: "`rate_limited`"),
        Setting("connection.errorBurst", \.connectionLimits.errorBurst, .integer, unit: "errors", range: 1...100_000,
                summary: "Error replies a connection may draw at once.",
                onBreach: "close 1008 `too many invalid requests`"),
        Setting("connection.errorsPerSecond", \.connectionLimits.errorsPerSecond, .number, unit: "per second", range: 0.001...100_000,
                summary: "Sustained error replies.",
                onBreach: "close 1008 `too many invalid requests`"),
    ]

    static let session: [Setting] = [
        Setting("session.graceWindow", \.hub.graceWindowMillis, .secondsAsMilliseconds, unit: "seconds", range: 0...86_400,
                summary: "How long a dropped player's seat is held for them to resume.",
                onBreach: "seat released, `participants{expired}`"),
        Setting("session.maxTextLength", \.hub.maxTextLength, .integer, unit: "characters", range: 1...100_000,
                summary: "`textNative`, `textTranslated` and `correctedText`.",
                onBreach: "`text_too_long`"),
        Setting("session.maxExplanationLength", \.hub.maxExplanationLength, .integer, unit: "characters", range: 1...100_000,
                summary: "A recast's `explanation`.",
                onBreach: "`text_too_long`"),
        Setting("session.maxLines", \.hub.maxLinesPerSession, .integer, unit: "lines", range: 1...1_000_000,
                summary: "Lines per session.",
                onBreach: "`session_limit`"),
        Setting("session.maxRecasts", \.hub.maxRecastsPerSession, .integer, unit: "recasts", range: 1...1_000_000,
                summary: "Recasts per session.",
                onBreach: "`session_limit`"),
        Setting("session.maxPlayers", \.hub.maxPlayersPerSession, .integer, unit: "players", range: 2...64,
                summary: "Players of a shared session (a scenario's `maxPlayers` may allow fewer).",
                onBreach: "`invalid_field` (host), `session_full` (join)"),
        Setting("session.maxLiveSessions", \.hub.maxLiveSessions, .integer, unit: "sessions", range: 1...10_000_000,
                summary: "Live sessions on this hub.",
                onBreach: "`hub_full`"),
        Setting("session.replayBufferSize", \.hub.replayBufferSize, .integer, unit: "broadcasts", range: 16...1_000_000,
                summary: "Broadcasts kept per session for exact replay on resume.",
                onBreach: "resume answers with a snapshot"),
        Setting("session.joinCodeLength", \.hub.joinCodeLength, .integer, unit: "characters", range: 4...16,
                summary: "Length of a join code (31-character alphabet).",
                onBreach: "—"),
    ]

    static let join: [Setting] = [
        Setting("join.failureWindow", \.hub.joinFailureWindowMillis, .secondsAsMilliseconds, unit: "seconds", range: 1...86_400,
                summary: "Window in which failed joins (a code that names no live session) are counted, per user and per client address, across connections.",
                onBreach: "—"),
        Setting("join.maxFailuresPerUser", \.hub.maxJoinFailuresPerUser, .integer, unit: "failures", range: 1...100_000,
                summary: "Failed joins of one user within the window before that user is locked out of joining.",
                onBreach: "`join_locked` with `retryAfter`; `sessionhub_join_lockouts_total`"),
        Setting("join.maxFailuresPerAddress", \.hub.maxJoinFailuresPerAddress, .integer, unit: "failures", range: 1...100_000,
                summary: "Failed joins from one client address (any user) within the window before that address is locked out of joining.",
                onBreach: "`join_locked` with `retryAfter`; `sessionhub_join_lockouts_total`"),
        Setting("join.lockout", \.hub.joinLockoutMillis, .secondsAsMilliseconds, unit: "seconds", range: 1...604_800,
                summary: "How long a locked-out user or address is refused every join, even with a right code.",
                onBreach: "`join_locked` with `retryAfter`"),
    ]

    static let token: [Setting] = [
        Setting("token.maxClockSkew", \.tokenPolicy.maxClockSkewSeconds, .wholeSeconds, unit: "seconds", range: 0...3600,
                summary: "How far in the future a token's `iat` may lie.",
                onBreach: "close 1008 `token_not_yet_valid` (HTTP 401)"),
        Setting("token.maxLifetime", \.tokenPolicy.maxLifetimeSeconds, .wholeSeconds, unit: "seconds", range: 60...31_536_000,
                summary: "Longest lifetime a token may claim, `exp - iat`.",
                onBreach: "close 1008 `token_lifetime` (HTTP 401)"),
    ]

    static let dashboard: [Setting] = [
        Setting("dashboard.maxFeeds", \.dashboard.maxConnections, .integer, unit: "feeds", range: 1...1000,
                summary: "Authenticated operator feeds (`/admin/feed`) open at once.",
                onBreach: "close 1013"),
        Setting("dashboard.maxPendingFeeds", \.dashboard.maxPendingConnections, .integer, unit: "feeds", range: 1...10_000,
                summary: "Feeds still waiting for their `auth` message; they never take an operator's place.",
                onBreach: "the oldest waiting feed is closed with 1013"),
        Setting("dashboard.authTimeout", \.dashboard.authTimeout, .seconds, unit: "seconds", range: 0.1...600,
                summary: "Time a feed has to send its `auth` message.",
                onBreach: "close 1008 `auth_timeout`"),
        Setting("dashboard.maxMessageBytes", \.dashboard.maxMessageBytes, .integer, unit: "bytes", range: 1024...Double(1 << 20),
                summary: "Largest message a feed client may send (its `auth`).",
                onBreach: "close 1009, from the frame header"),
    ]
}
