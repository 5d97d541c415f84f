import NIOCore
import WebSocketTransport

/// A task executor on one event loop: a connection's requests are processed on the loop that
/// reads them (``HubConnectionWorker``), and reach a session on the same loop without a thread
/// switch; the PostgreSQL journal's committers run on one too. One per loop, made on first use.
public final class EventLoopTaskExecutor: TaskExecutor {
    private static let executors = PerEventLoop { EventLoopTaskExecutor(eventLoop: $0) }

    private let eventLoop: any EventLoop

    private init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// The task executor of `eventLoop`.
    public static func on(_ eventLoop: any EventLoop) -> EventLoopTaskExecutor {
        executors.on(eventLoop)
    }

    /// Runs `job` on the loop.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
