import HubDomain
import NIOCore

/// Runs each live session on an event loop, the group's loops taken in turn, so that sessions
/// spread evenly over the loops whatever loops their players' connections were accepted on;
/// every member then moves to its session's loop (``SocketParticipantLink/settle(near:)``), so
/// that a request, the session's work and the writes to its members stay on one thread. The
/// hub's registry runs on one of the loops too, and the clock's ticks visit each loop's sessions
/// from a task on that loop.
///
/// (A session on its creator's loop spread badly: connections are accepted on the loops in
/// turn, so when players arrive in groups of an even size every host lands on the same loop, and
/// with its members moved there one loop did all the work.)
struct EventLoopSessionExecutors: SessionExecutors {
    let group: any EventLoopGroup

    func executor(near link: (any ParticipantLink)?) -> any SerialExecutor {
        group.next().executor
    }

    /// One of the loops: a join's trip through the registry wakes no other thread (with one
    /// loop, none at all), where a dispatch queue of its own cost two thread switches per visit.
    func hubExecutor() -> any SerialExecutor {
        group.next().executor
    }

    /// The loop's ``EventLoopTaskExecutor`` when `executor` is an event loop.
    func taskExecutor(sharing executor: any SerialExecutor) -> (any TaskExecutor)? {
        (executor as? any EventLoop).map { EventLoopTaskExecutor.on($0) }
    }
}
