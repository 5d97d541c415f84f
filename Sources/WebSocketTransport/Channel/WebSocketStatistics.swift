import Synchronization

/// Running totals of a server's connections that no single connection reports: how often a slow
/// reader was cut off and how many frames were dropped because their connection was already
/// closing. Read them for metrics; they only ever grow.
public final class WebSocketStatistics: Sendable {
    private let slowConsumers = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)

    /// Starts at zero.
    public init() {}

    /// Connections closed with 1008 "slow consumer" (outbound queue over its limit).
    public var slowConsumerDisconnects: Int { slowConsumers.load(ordering: .relaxed) }

    /// Outbound messages not written because the connection was closing or closed.
    public var droppedFrames: Int { dropped.load(ordering: .relaxed) }

    func noteSlowConsumer() { slowConsumers.add(1, ordering: .relaxed) }

    func noteDroppedFrame() { dropped.add(1, ordering: .relaxed) }
}
