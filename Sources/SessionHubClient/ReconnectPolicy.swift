/// How a ``SessionHubClient`` comes back after its connection dropped: exponential backoff with
/// full jitter (each wait is random between zero and `initialDelay · 2^(attempt−1)`, capped at
/// `maxDelay`), so that many clients dropped at once do not come back at once.
public struct ReconnectPolicy: Sendable, Equatable {
    /// The cap of the first wait.
    public var initialDelay: Duration
    /// The largest cap.
    public var maxDelay: Duration
    /// Attempts before giving up (nil: until ``SessionHubClient/close()``).
    public var maxAttempts: Int?

    /// 0.25 s, doubling up to 10 s, without end.
    public init(initialDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(10), maxAttempts: Int? = nil) {
        self.initialDelay = initialDelay
        self.maxDelay = max(initialDelay, maxDelay)
        self.maxAttempts = maxAttempts
    }

    /// The wait before attempt `attempt` (1, 2, …), with `random` in 0..<1.
    public func delay(beforeAttempt attempt: Int, random: Double) -> Duration {
        let doublings = min(max(attempt - 1, 0), 30)
        let cap = min(maxDelay, initialDelay * (1 << doublings))
        return cap * min(max(random, 0), 1)
    }

    /// Whether a connection closed with `code` and `reason` is worth reconnecting: it dropped
    /// (no close frame), the hub is going away or restarting, the session moved to another node,
    /// or the token expired (a fresh one comes from the token provider) or was signed with an
    /// identity provider's key the hub has yet to load. Not after a close the
    /// client asked for, a protocol error, or a refusal of who the client is.
    public static func reconnects(afterClose code: Int?, reason: String) -> Bool {
        guard let code else { return true }
        switch code {
        case 1001, 1011, 1012, 1013, 1014: return true
        // token_unknown_key: the identity provider rotated to a key the hub loads on its next
        // JWKS reload, which that very refusal asks for.
        case 1008: return reason.hasPrefix("token_expired") || reason.hasPrefix("token_unknown_key")
        default: return false
        }
    }
}
