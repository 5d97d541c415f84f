import SessionHubSync

/// Running totals of a server's connections that no single connection reports: how often a slow
/// reader was cut off, how many frames were dropped because their connection was already
/// closing, connections refused (by reason) and HTTP deadlines passed (by phase). Read them for
/// metrics; they only ever grow.
public final class WebSocketStatistics: Sendable {
    private let slowConsumers = RelaxedCounter()
    private let dropped = RelaxedCounter()
    private let refused = RelaxedCounter()
    private let open = RelaxedCounter()
    private let otherRefusals = LockedValue<[ConnectionRefusal: Int]>([:])
    private let timeouts = LockedValue<[HTTPPhase: Int]>([:])

    /// Starts at zero.
    public init() {}

    /// Connections closed with 1008 "slow consumer" (outbound queue over its limit).
    public var slowConsumerDisconnects: Int { slowConsumers.value }

    /// Outbound messages not written because the connection was closing or closed.
    public var droppedFrames: Int { dropped.value }

    /// TCP connections closed on accept because the server held its maximum.
    public var refusedConnections: Int { refused.value }

    /// Connections refused for `reason` (``ConnectionRefusal/maxConnections`` is ``refusedConnections``).
    public func refused(_ reason: ConnectionRefusal) -> Int {
        if reason == .maxConnections { return refusedConnections }
        return otherRefusals.withLock { $0[reason, default: 0] }
    }

    /// Connections ended because the deadline of `phase` passed before the WebSocket upgrade.
    public func httpTimeouts(_ phase: HTTPPhase) -> Int {
        timeouts.withLock { $0[phase, default: 0] }
    }

    /// Open TCP connections (WebSocket and plain HTTP).
    public var openConnections: Int { open.value }

    /// Counts a new TCP connection against `limit`; false (and counted as refused) when it would pass it.
    func admit(limit: Int) -> Bool {
        let now = open.add(1)
        if now > limit {
            open.add(-1)
            refused.add(1)
            return false
        }
        return true
    }

    /// An admitted connection closed.
    func release() { open.add(-1) }

    func noteRefusal(_ reason: ConnectionRefusal) {
        if reason == .maxConnections {
            refused.add(1)
        } else {
            otherRefusals.withLock { $0[reason, default: 0] += 1 }
        }
    }

    func noteTimeout(_ phase: HTTPPhase) { timeouts.withLock { $0[phase, default: 0] += 1 } }

    func noteSlowConsumer() { slowConsumers.add(1) }

    func noteDroppedFrame() { dropped.add(1) }
}
