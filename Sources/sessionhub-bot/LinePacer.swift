/// Keeps one player's `say`, `recast` and `acceptRecast` under the hub's line rate
/// (`welcome.limits.linesPerSecond`) so the hub never has to answer `rate_limited`: at most
/// `rate` sends in any one-second window. Each request reserves the earliest moment it may go;
/// reservations never move backwards, so requests go out in the order they were made.
struct LinePacer: Sendable {
    /// Sends allowed per second.
    private(set) var rate: Int
    /// The newest reservations, at most `rate`, oldest first.
    private var slots: [ContinuousClock.Instant] = []
    /// A little slack so the hub's bucket has surely refilled.
    private let margin: Duration = .milliseconds(20)

    /// A pacer for `rate` sends per second (at least 1).
    init(rate: Int) {
        self.rate = max(1, rate)
    }

    /// Adopts the rate a `welcome` announced.
    mutating func adopt(rate newRate: Int) {
        rate = max(1, newRate)
        if slots.count > rate { slots.removeFirst(slots.count - rate) }
    }

    /// Reserves the earliest moment, `now` or later, at which one more send keeps every
    /// one-second window at `rate` or fewer.
    mutating func reserve(now: ContinuousClock.Instant = .now) -> ContinuousClock.Instant {
        var slot = max(now, slots.last ?? now)
        if slots.count >= rate {
            slot = max(slot, slots[slots.count - rate] + .seconds(1) + margin)
        }
        slots.append(slot)
        if slots.count > rate { slots.removeFirst(slots.count - rate) }
        return slot
    }
}
