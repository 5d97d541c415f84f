/// A request a player sent and whose answer it has not seen yet.
struct PendingRequest: Sendable {
    /// What was asked.
    enum Kind: String, Sendable {
        case start, resume, say, recast, acceptRecast, end, leave
    }

    /// What was asked.
    var kind: Kind
    /// The message as sent, to send again after `rate_limited`.
    var text: String
    /// How many times it was sent again.
    var retries = 0
}
