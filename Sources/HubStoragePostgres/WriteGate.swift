import Synchronization

/// Lets at most `limit` callers through at a time; the others wait their turn, first come first
/// served (a counting semaphore for async code).
///
/// ``PostgresStore`` passes every ended session's write through one, so a wave of sessions ending
/// together becomes a queue on this node instead of as many busy PostgreSQL backends at once:
/// the journal's commits of the sessions still playing keep a core (see
/// ``PostgresStore/defaultHistoryWritesInFlight``). SQLite gets the same effect from its single
/// writer connection.
final class WriteGate: Sendable {
    private struct State {
        var running = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
        var head = 0
    }

    /// The most callers inside at once.
    let limit: Int
    private let state = Mutex(State())

    /// A gate letting `limit` callers (at least one) through at a time.
    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Callers inside the gate now.
    var running: Int { state.withLock { $0.running } }

    /// Callers waiting for their turn now.
    var waiting: Int { state.withLock { $0.waiters.count - $0.head } }

    /// Runs `body` once fewer than ``limit`` others are running.
    func run<Result: Sendable>(_ body: () async throws -> Result) async rethrows -> Result {
        await enter()
        defer { leave() }
        return try await body()
    }

    private func enter() async {
        // Decided and registered in one step, under the lock, inside the closure: a leave in
        // between can neither be missed nor hand the turn to nobody.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state -> Bool in
                if state.running < limit {
                    state.running += 1
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if admitted { continuation.resume() }
        }
    }

    private func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.head < state.waiters.count else {
                state.running -= 1
                return nil
            }
            // The turn passes straight to the first waiter: `running` stays as it is.
            let next = state.waiters[state.head]
            state.head += 1
            // Served entries are dropped once they are half the array, so a queue that never
            // empties does not grow with every write it has served.
            if state.head * 2 >= state.waiters.count {
                state.waiters.removeFirst(state.head)
                state.head = 0
            }
            return next
        }
        next?.resume()
    }
}
