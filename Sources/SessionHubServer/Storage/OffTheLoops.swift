/// Runs storage work on the global concurrent executor. Requests and sessions run on the event
/// loops (``EventLoopTaskExecutor``, ``EventLoopSessionExecutors``), and a nonisolated async
/// call inherits the loop as its task executor; SQLite works synchronously under its lock, so
/// without this hop a history save or a profile read would hold every connection of the loop.
enum OffTheLoops {
    /// `body`, run off the event loops.
    static func run<T, Failure: Error>(_ body: () async throws(Failure) -> T) async throws(Failure) -> T {
        try await withTaskExecutorPreference(globalConcurrentExecutor, operation: body)
    }
}
