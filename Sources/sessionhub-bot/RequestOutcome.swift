/// What became of a request a player sent.
enum RequestOutcome: Sendable, Equatable {
    /// No answer yet.
    case pending
    /// Answered as asked (`joined`, `resumed`, or the player's own copy of the broadcast).
    case done
    /// Answered with `error`.
    case refused(code: String, message: String)
}
