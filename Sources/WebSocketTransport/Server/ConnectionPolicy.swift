import NIOCore

/// How long a connection may take over its HTTP phase (before a WebSocket upgrade, or for plain
/// HTTP), and how many connections one client address may hold, so that silent sockets and
/// clients opening sockets by the hundred cannot exhaust the server. Each setting has its one
/// default here. See docs/OPERATIONS.md.
public struct ConnectionPolicy: Sendable, Hashable {
    /// Open TCP connections from one client address beyond which a new one is refused: closed on
    /// accept, or answered 429 at its request head when the address comes from a trusted proxy's
    /// `X-Forwarded-For`. Default 256.
    public var maxConnectionsPerAddress = 256
    /// Connections from one client address that are still in the HTTP phase, or upgraded to an
    /// endpoint that authenticates (``WebSocketRouteOptions/awaitsAuthentication``) and have not
    /// yet, beyond which a new one is refused like ``maxConnectionsPerAddress``. Default 32.
    public var maxUnauthenticatedConnectionsPerAddress = 32
    /// Addresses of reverse proxies (nginx) whose `X-Forwarded-For` is believed: a connection
    /// from one of them is counted against the last address of that header, request by request,
    /// instead of the proxy's own. Default empty: the peer's address always counts.
    public var trustedProxies: [String] = []
    /// How long a request head may take to arrive: from accept for the first request, from its
    /// first byte for a later one on a keep-alive connection. Set once, so a head dribbled a byte
    /// at a time does not extend it. A connection that sent nothing is closed without a word; one
    /// that sent part of a head gets 408. Default 10 s (a head is one packet for any real client).
    public var requestHeadTimeout = TimeAmount.seconds(10)
    /// How long a request body may take to arrive after its head (408 beyond). Default 30 s: the
    /// largest body (``WebSocketServerConfiguration/maxHTTPBodySize``, 1 MiB) at about 35 KB/s,
    /// a poor mobile link.
    public var requestBodyTimeout = TimeAmount.seconds(30)
    /// How long a keep-alive connection may wait, after a response, for the first byte of its
    /// next request before it is closed without a word. Default 30 s: longer than the upstream
    /// keep-alive of the shipped nginx configuration (20 s), so the proxy closes its idle
    /// connections first and never sends a request on one the hub is closing.
    public var keepAliveTimeout = TimeAmount.seconds(30)

    /// The defaults.
    public init() {}
}
