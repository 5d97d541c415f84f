import HubStorage
import NIOCore

/// Runs a local journal's group commits (the log's or SQLite's) on an event loop.
///
/// With one event loop (`--threads 1`) every session runs on it: an append then reaches its
/// commit, and the commit wakes the session, as jobs of the same loop — no thread switch, no
/// futex and no loop wake-up per commit. The commit holds the loop for its write: the log
/// journal's one `pwrite` (its syncs run on a queue of their own; a compaction's copy, under the
/// same lock, can hold it longer), or SQLite's WAL frames (no
/// `fsync` in WAL mode with `synchronous=NORMAL`) and any wait for the journal's exclusive work
/// or a checkpoint's last step (``HubStorage/SQLiteCommitRunner``).
/// The journal must be closed before the loop stops (the server closes its storage first).
/// With several loops the SQLite journal keeps its own thread (``HubStorage/DispatchCommitRunner``):
/// a commit on one loop would hold that loop's connections for every other loop's sessions; the
/// log journal commits on the appender's loop (``AppenderLoopCommitRunner``).
struct EventLoopCommitRunner: SQLiteCommitRunner {
    let eventLoop: any EventLoop

    func run(atUptimeNanoseconds deadline: UInt64, _ work: @escaping @Sendable () -> Void) {
        let at = NIODeadline.uptimeNanoseconds(deadline)
        if at <= .now() {
            eventLoop.execute(work)
        } else {
            _ = eventLoop.scheduleTask(deadline: at, work)
        }
    }
}
