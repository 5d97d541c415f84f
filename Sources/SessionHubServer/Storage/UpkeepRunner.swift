import Synchronization

/// Runs the storage's periodic upkeep (``HubPersistence/maintenance``) one pass at a time, and
/// lets shutdown wait for the pass in flight before the storage closes.
///
/// A pass that is still running when the next one is due is not doubled: the due one is skipped
/// (a slow history retry or journal sweep never piles up behind itself). After ``stop()`` no
/// pass starts, and ``stop()`` returns once the running one has finished, so that closing the
/// storage never cuts a sweep in half ("database is closed" in the middle of its slices).
final class UpkeepRunner: Sendable {
    private enum State {
        case idle
        case running(Task<Void, Never>)
        case stopped
    }

    private let pass: (@Sendable () async -> Void)?
    private let state = Mutex(State.idle)

    /// A runner of `pass` (nil: nothing to run).
    init(_ pass: (@Sendable () async -> Void)?) {
        self.pass = pass
    }

    /// Starts a pass unless one is running or the runner stopped; returns whether it started.
    @discardableResult
    func startIfIdle() -> Bool {
        guard let pass else { return false }
        return state.withLock { state -> Bool in
            guard case .idle = state else { return false }
            state = .running(Task {
                await pass()
                self.finished()
            })
            return true
        }
    }

    /// Runs a pass now and returns when it is done (at start, before the hub listens); does
    /// nothing while another runs or after ``stop()``.
    func runNow() async {
        guard startIfIdle(), case .running(let task) = state.withLock({ $0 }) else { return }
        await task.value
    }

    /// Starts no more passes and waits for the one in flight. Idempotent.
    func stop() async {
        let running = state.withLock { state -> Task<Void, Never>? in
            defer { state = .stopped }
            if case .running(let task) = state { return task }
            return nil
        }
        await running?.value
    }

    private func finished() {
        state.withLock { state in
            if case .running = state { state = .idle }
        }
    }
}
