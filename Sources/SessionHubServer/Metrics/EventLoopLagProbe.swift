import Dispatch
import NIOCore
import Synchronization

/// Measures how late each event loop runs: every ``interval`` a probe task scheduled on each
/// loop records how long after its due time it ran (`sessionhub_event_loop_lag_seconds`).
///
/// A loop runs its connections' reads, its sessions and, with one loop, the journal's commits:
/// while one job runs, everything else on that loop waits. The lag shows what the fan-out
/// latency alone cannot: whether a slow delivery waited behind long jobs on its loop (a high lag
/// with the loop not full), behind a full loop (a high lag and a busy core), or elsewhere, such
/// as the journal's commit (a low lag). A probe costs one timer wake-up per loop every
/// ``interval``, idle or not.
final class EventLoopLagProbe: Sendable {
    /// Time between two probes on one loop.
    static let interval = TimeAmount.milliseconds(50)

    private let tasks: Mutex<[RepeatedTask]>

    /// Starts probing every loop of `loops`, handing each lag in nanoseconds to `record` (on
    /// the loop measured).
    init(loops: [any EventLoop], record: @escaping @Sendable (Int64) -> Void) {
        let interval = Self.interval
        tasks = Mutex(loops.map { loop in
            // When this loop's next probe is due (uptime ns); only its own probe touches it.
            let due = Atomic<UInt64>(DispatchTime.now().uptimeNanoseconds + UInt64(interval.nanoseconds))
            return loop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
                let now = DispatchTime.now().uptimeNanoseconds
                let expected = due.load(ordering: .relaxed)
                record(now > expected ? Int64(clamping: now - expected) : 0)
                due.store(now + UInt64(interval.nanoseconds), ordering: .relaxed)
            }
        })
    }

    /// Stops every probe (before the loops shut down).
    func stop() {
        tasks.withLock { tasks in
            for task in tasks { task.cancel() }
            tasks = []
        }
    }
}
