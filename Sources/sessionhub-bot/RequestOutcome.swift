/// What became of a request a player sent.
enum RequestOutcome: Sendable, Equatable {
    /// No answer yet.
    case pending
    /// Answered as asked (`joined`, `resumed`, or the player's own copy of the broadcast).
    case done
    /// Answered with `error`.
    case refused(code: String, message: String)
    /// Answered `session_elsewhere` (a cluster): send it again on the node at `url`, or, without
    /// one (the session is between owners), here again after `retryAfter` seconds.
    case redirected(url: String?, retryAfter: Int)
}
