import HubStorage
import NIOCore
import NIOPosix

/// Runs the log journal's group commits on the event loop of the append that schedules them,
/// when the hub has several loops.
///
/// A session runs on one of the hub's loops, so its append reaches the commit, and the commit
/// wakes it, without a hop to the journal's thread and back. Appends that arrive from another
/// loop meanwhile join the same batch and are woken from the committing loop, as they were from
/// the journal's thread. A commit holds its loop for one `pwrite` (the log's syncs run on a queue
/// of their own), or longer while the journal's exclusive work (a compaction's copy) holds its
/// lock. Appends from threads that are not the hub's loops commit on `fallback`.
struct AppenderLoopCommitRunner: SQLiteCommitRunner {
    let loops: [any EventLoop]
    let fallback: any SQLiteCommitRunner

    func run(atUptimeNanoseconds deadline: UInt64, _ work: @escaping @Sendable () -> Void) {
        guard let current = MultiThreadedEventLoopGroup.currentEventLoop,
              let loop = loops.first(where: { $0 === current }) else {
            return fallback.run(atUptimeNanoseconds: deadline, work)
        }
        EventLoopCommitRunner(eventLoop: loop).run(atUptimeNanoseconds: deadline, work)
    }
}
