import HubDomain
import Synchronization

/// The expiry timer of every authenticated `/ws` connection, shared: connections wait in
/// buckets by the second their token expires, and one task, awake once a second while any
/// connection waits, tells the due ones (``ConnectionInput/tokenExpired``). An idle connection
/// costs a slot in a bucket instead of a scheduled task with its promise and closures.
///
/// A connection hears of its expiry within a second after its token's `exp` (never before:
/// the worker checks the token against the hub's clock and closes it with `token_expired`).
final class TokenExpiryWheel: Sendable {
    private struct State {
        /// Waiting connections by the second (epoch seconds) their token expires.
        var buckets: [Int64: [ObjectIdentifier: HubConnectionWorker]] = [:]
        /// Every second up to this one has been told.
        var sweptUpTo: Int64?
        /// The ticking task runs.
        var ticking = false
    }

    private let clock: any HubClock
    private let state = Mutex(State())

    /// A wheel reading the time from `clock`.
    init(clock: any HubClock) {
        self.clock = clock
    }

    /// Connections waiting, for tests and metrics.
    var count: Int { state.withLock { $0.buckets.values.reduce(0) { $0 + $1.count } } }

    /// Makes `worker` wait for `exp` (epoch seconds), leaving the bucket it waited in before
    /// (`previous`, the value an earlier call returned). Returns the second of the bucket it waits
    /// in now: `exp`, or the next second to be swept when `exp` has been swept already (the hub's
    /// clock stepped back): it is then told at the next tick and checks again.
    @discardableResult
    func arm(_ worker: HubConnectionWorker, at exp: Int, previous: Int64?) -> Int64 {
        let key = ObjectIdentifier(worker)
        let (second, start) = state.withLock { state -> (Int64, Bool) in
            if let previous { Self.remove(key, at: previous, from: &state.buckets) }
            let second = max(Int64(clamping: exp), (state.sweptUpTo ?? .min) &+ 1)
            state.buckets[second, default: [:]][key] = worker
            guard !state.ticking else { return (second, false) }
            state.ticking = true
            return (second, true)
        }
        if start { Task { await self.tick() } }
        return second
    }

    /// Forgets `worker`, waiting in the bucket of `second` (its connection closed).
    func disarm(_ worker: HubConnectionWorker, at second: Int64) {
        state.withLock { Self.remove(ObjectIdentifier(worker), at: second, from: &$0.buckets) }
    }

    private static func remove(_ key: ObjectIdentifier, at second: Int64,
                               from buckets: inout [Int64: [ObjectIdentifier: HubConnectionWorker]]) {
        guard buckets[second]?.removeValue(forKey: key) != nil, buckets[second]?.isEmpty == true else { return }
        buckets[second] = nil
    }

    /// Once a second while anyone waits: tells every connection whose second has come.
    private func tick() async {
        while true {
            try? await Task.sleep(for: .seconds(1))
            let now = clock.now() / 1000
            let due = state.withLock { state -> [HubConnectionWorker]? in
                var due: [HubConnectionWorker] = []
                let from = state.sweptUpTo.map { $0 + 1 } ?? now
                if from <= now, now - from < 64 {
                    for second in from...now {
                        if let bucket = state.buckets.removeValue(forKey: second) { due.append(contentsOf: bucket.values) }
                    }
                }
                // A first sweep, a jump of the clock or a long sleep: look at every bucket.
                if state.sweptUpTo == nil || now - from >= 64 {
                    for second in state.buckets.keys where second <= now {
                        if let bucket = state.buckets.removeValue(forKey: second) { due.append(contentsOf: bucket.values) }
                    }
                }
                state.sweptUpTo = max(state.sweptUpTo ?? now, now)
                if due.isEmpty, state.buckets.isEmpty {
                    state.ticking = false
                    return nil
                }
                return due
            }
            guard let due else { return }
            for worker in due { worker.yield(.tokenExpired) }
        }
    }
}
