#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOPosix

/// Runs storage work on the hub's storage thread. Requests and sessions run on the event
/// loops (``EventLoopTaskExecutor``, ``EventLoopSessionExecutors``), and a nonisolated async
/// call inherits the loop as its task executor; SQLite works synchronously under its lock, so
/// without this hop a history save or a profile read would hold every connection of the loop.
///
/// On Linux the storage thread runs under the `SCHED_IDLE` policy: when it shares a core with
/// an event loop, a session's end (its history, progress and word reviews, a few milliseconds
/// of CPU) gives the core back the moment the loop wakes, instead of holding it for its time
/// slice. A merely lower priority (nice 10) is not enough on Linux 6.6 and later: the EEVDF
/// scheduler lets a running thread finish its slice before a waking one of higher priority
/// takes the core, and every delivery queued behind it waits (measured in the README, issue
/// 11). The thread is not starved: `SCHED_IDLE` still gets a small share of a busy core, and
/// the loops go idle while a commit they wait for is pending. Where the policy cannot be set,
/// the thread runs at nice ``fallbackNiceness`` instead.
enum OffTheLoops {
    /// Linux's `SCHED_IDLE` scheduling policy (`<sched.h>`; not exported to Swift by Glibc).
    static let idlePolicy: Int32 = 5

    /// How much lower the storage thread's priority is than the process's (Linux `nice`) when
    /// ``idlePolicy`` cannot be set.
    static let fallbackNiceness: Int32 = 10

    private static let executor: EventLoopTaskExecutor = {
        let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1).next()
        loop.execute {
            #if os(Linux)
            // On Linux a thread id names one thread to sched_setscheduler(2) and setpriority(2):
            // only this one is lowered.
            if let tid = currentThreadId() {
                var parameters = sched_param(sched_priority: 0)
                if sched_setscheduler(pid_t(tid), idlePolicy, &parameters) != 0 {
                    let which = __priority_which_t(PRIO_PROCESS.rawValue)
                    _ = setpriority(which, tid, getpriority(which, 0) + fallbackNiceness)
                }
            }
            #endif
        }
        return EventLoopTaskExecutor.on(loop)
    }()

    #if os(Linux)
    /// The calling thread's kernel id, from the `/proc/thread-self` link ("PID/task/TID").
    private static func currentThreadId() -> id_t? {
        var buffer = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/thread-self", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let link = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return link.split(separator: "/").last.flatMap { id_t($0) }
    }
    #endif

    /// `body`, run off the event loops.
    static func run<T, Failure: Error>(_ body: () async throws(Failure) -> T) async throws(Failure) -> T {
        try await withTaskExecutorPreference(executor, operation: body)
    }
}
