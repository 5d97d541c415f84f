import Dispatch
import Synchronization

/// The group commit both SQLite-side journals share (``SQLiteJournal``, ``LogJournal``): appends
/// queue their rows and suspend; one commit at a time, scheduled on the journal's
/// ``SQLiteCommitRunner``, takes everything queued and writes it together, then resumes every
/// appender in it (or makes each throw the commit's error).
///
/// An append to an idle journal schedules a commit at once; appends that arrive while one is
/// scheduled or running are gathered into the next. With an `interval` above zero, at most one
/// commit starts per interval.
final class GroupCommitQueue<Row: Sendable>: Sendable {
    /// A queued row; only the last row of a group appended together carries the continuation
    /// (a group is always in one batch).
    struct Pending: Sendable {
        var row: Row
        var continuation: CheckedContinuation<Void, any Error>?
    }

    /// What a commit takes: the rows, and whether it must fail (``failNextCommits``).
    struct Batch: Sendable {
        var pending: [Pending]
        var inject: Bool
        var rows: [Row] { pending.map(\.row) }
    }

    private struct State: Sendable {
        var pending: [Pending] = []
        /// A commit is scheduled on the runner.
        var scheduled = false
        var closed = false
        /// Uptime (ns) when the last commit took its batch.
        var lastCommit: UInt64 = 0
        var failNextCommits = 0
        var commits = 0
    }

    private let state = Mutex(State())
    private let intervalNanoseconds: UInt64
    private let runner: any SQLiteCommitRunner

    /// A queue whose commits run on `runner`, at most one per `interval`.
    init(interval: Duration, runner: any SQLiteCommitRunner) {
        let (seconds, attoseconds) = interval.components
        self.intervalNanoseconds = UInt64(max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000)
        self.runner = runner
    }

    /// Queues `rows` together and returns once the commit that took them is done; throws its
    /// error, or ``StorageError`` when the queue is closed. When no commit is scheduled,
    /// `commit` is handed to the runner (it must call ``take()`` and ``finish(_:error:)``).
    func enqueue(_ rows: [Row], commit: @escaping @Sendable () -> Void) async throws {
        guard !rows.isEmpty else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            var group = rows.map { Pending(row: $0, continuation: nil) }
            group[group.count - 1].continuation = continuation
            let schedule = state.withLock { state -> UInt64?? in
                if state.closed { return .some(nil) }
                state.pending.append(contentsOf: group)
                if state.scheduled { return nil }
                state.scheduled = true
                return .some(state.lastCommit + intervalNanoseconds)
            }
            switch schedule {
            case .none:
                break
            case .some(.none):
                continuation.resume(throwing: StorageError("journal is closed"))
            case .some(.some(let deadline)):
                runner.run(atUptimeNanoseconds: deadline, commit)
            }
        }
    }

    /// Takes everything queued (nil when nothing is); the next append schedules a new commit.
    func take() -> Batch? {
        state.withLock { state -> Batch? in
            let pending = state.pending
            state.pending.removeAll()
            state.scheduled = false
            guard !pending.isEmpty else { return nil }
            state.lastCommit = DispatchTime.now().uptimeNanoseconds
            let inject = state.failNextCommits > 0
            if inject { state.failNextCommits -= 1 }
            return Batch(pending: pending, inject: inject)
        }
    }

    /// Resumes the batch's appenders: all of them throw `error` when there is one.
    func finish(_ batch: Batch, error: (any Error)?) {
        if let error {
            let failure = error as? StorageError ?? StorageError("journal commit: \(error)")
            for pending in batch.pending { pending.continuation?.resume(throwing: failure) }
        } else {
            state.withLock { $0.commits += 1 }
            for pending in batch.pending { pending.continuation?.resume() }
        }
    }

    /// Refuses later appends (they throw); what is queued stays for the last ``take()``.
    func close() {
        state.withLock { $0.closed = true }
    }

    /// Fault injection for tests: the next `failNextCommits` batches are taken with `inject`.
    var failNextCommits: Int {
        get { state.withLock { $0.failNextCommits } }
        set { state.withLock { $0.failNextCommits = max(0, newValue) } }
    }

    /// Rows queued and not yet taken.
    var pendingCount: Int { state.withLock { $0.pending.count } }

    /// Batches committed so far.
    var commitCount: Int { state.withLock { $0.commits } }
}
