/// Why a server refused an opening handshake, and the HTTP response to send instead of 101.
///
/// The transport writes `status` with a short body (for example `reason`), adds its own framing
/// headers (`Content-Length`, `Content-Type`) and should close the connection afterwards
/// (`Connection: close`; a repeated `Connection` field combines with the one in ``headers``).
public struct HandshakeRejection: Error, Sendable, CustomStringConvertible {
    /// The HTTP status: 400, 403, 405, 426 or 431.
    public var status: Int
    /// A human-readable explanation, for the response body and logs. Never echoes header values.
    public var reason: String
    /// Header fields the response must carry (`Allow` for 405; `Upgrade`, `Connection` and
    /// `Sec-WebSocket-Version` for 426).
    public var headers: [(name: String, value: String)]

    /// Creates a rejection.
    public init(status: Int, reason: String, headers: [(name: String, value: String)] = []) {
        self.status = status
        self.reason = reason
        self.headers = headers
    }

    /// A textual form: the status and the reason.
    public var description: String { "\(status) \(reason)" }

    /// 400 Bad Request: the request is not a valid WebSocket upgrade.
    static func badRequest(_ reason: String) -> HandshakeRejection {
        HandshakeRejection(status: 400, reason: reason)
    }

    /// 403 Forbidden: the origin policy refused the request.
    static func forbiddenOrigin() -> HandshakeRejection {
        HandshakeRejection(status: 403, reason: "Origin not allowed")
    }

    /// 405 Method Not Allowed, with `Allow: GET` (RFC 9110 §15.5.6).
    static func methodNotAllowed() -> HandshakeRejection {
        HandshakeRejection(status: 405, reason: "WebSocket upgrade requires GET", headers: [("Allow", "GET")])
    }

    /// 426 Upgrade Required, naming the one version spoken (RFC 6455 §4.2.2 item 4, §4.4) and,
    /// as RFC 9110 §15.5.22 requires of a 426, the protocol to upgrade to.
    static func unsupportedVersion() -> HandshakeRejection {
        HandshakeRejection(
            status: 426,
            reason: "Unsupported Sec-WebSocket-Version (this server speaks 13)",
            headers: [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Version", "13")]
        )
    }

    /// 431 Request Header Fields Too Large (RFC 6585 §5).
    static func headersTooLarge(_ reason: String) -> HandshakeRejection {
        HandshakeRejection(status: 431, reason: reason)
    }
}
