import HubDomain

/// The rates of a `/ws` connection's token buckets, made once from ``HubConnectionLimits`` and
/// shared by every connection (each keeps only its buckets' state).
struct ConnectionRates: Sendable {
    /// Requests of any kind.
    let requests: TokenBucket.Rate
    /// `say`, `recast`, `acceptRecast`.
    let lines: TokenBucket.Rate
    /// `join` and `resume` attempts.
    let joins: TokenBucket.Rate
    /// Error replies tolerated before the connection is closed.
    let errors: TokenBucket.Rate

    init(_ limits: HubConnectionLimits) {
        requests = TokenBucket.Rate(capacity: limits.requestBurst, ratePerSecond: limits.requestsPerSecond)
        lines = TokenBucket.Rate(capacity: limits.lineBurst, ratePerSecond: limits.linesPerSecond)
        joins = TokenBucket.Rate(capacity: limits.joinBurst, ratePerSecond: limits.joinsPerMinute / 60)
        errors = TokenBucket.Rate(capacity: limits.errorBurst, ratePerSecond: limits.errorsPerSecond)
    }
}
