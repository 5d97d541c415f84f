import NIOConcurrencyHelpers
import NIOCore

/// A task executor on one event loop: a connection's requests are processed on the loop that
/// reads them (``HubConnectionWorker``), and reach a session on the same loop without a thread
/// switch. One per loop, made on first use; like the loops, they live as long as the process.
final class EventLoopTaskExecutor: TaskExecutor {
    private static let executors = NIOLockedValueBox<[ObjectIdentifier: EventLoopTaskExecutor]>([:])

    private let eventLoop: any EventLoop

    private init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// The task executor of `eventLoop`.
    static func on(_ eventLoop: any EventLoop) -> EventLoopTaskExecutor {
        let key = ObjectIdentifier(eventLoop)
        return executors.withLockedValue { executors in
            if let existing = executors[key] { return existing }
            let executor = EventLoopTaskExecutor(eventLoop: eventLoop)
            executors[key] = executor
            return executor
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
