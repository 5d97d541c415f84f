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
/// The storage thread runs at a lower scheduling priority (nice ``niceness``) than the event
/// loops: a session's end (its history, progress and word reviews, a few milliseconds of CPU)
/// then yields the core to the loops' deliveries instead of taking turns with them.
enum OffTheLoops {
    /// How much lower the storage thread's priority is than the process's (Linux `nice`).
    static let niceness: Int32 = 10

    private static let executor: EventLoopTaskExecutor = {
        let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1).next()
        loop.execute {
            #if os(Linux)
            // On Linux a thread id names one thread to setpriority(2): only this one is lowered.
            if let tid = currentThreadId() {
                let which = __priority_which_t(PRIO_PROCESS.rawValue)
                _ = setpriority(which, tid, getpriority(which, 0) + niceness)
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
