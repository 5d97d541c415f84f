/// A request a player made whose call has not returned yet.
struct PendingRequest: Sendable {
    /// What was asked.
    enum Kind: String, Sendable {
        case start, say, recast, acceptRecast, end, leave
    }

    /// What was asked.
    var kind: Kind
    /// How many times it was sent again after `rate_limited`.
    var retries = 0
}
