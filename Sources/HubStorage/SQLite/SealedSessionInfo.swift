/// An ended session whose history write failed and waits in `sealed_sessions` for
/// ``SQLiteStore/retrySealed()``.
public struct SealedSessionInfo: Sendable, Equatable {
    /// The session.
    public var sessionId: String
    /// Failed writes so far (the first save included).
    public var attempts: Int
    /// The last failure, for logs.
    public var lastError: String?

    /// Creates the record.
    public init(sessionId: String, attempts: Int, lastError: String?) {
        self.sessionId = sessionId
        self.attempts = attempts
        self.lastError = lastError
    }
}
