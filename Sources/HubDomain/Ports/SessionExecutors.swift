/// Where each live session's actor runs (its serial executor), and the hub's registry with them.
///
/// The server runs sessions on its event loops in turn, and moves each member's connection to
/// its session's loop (``ParticipantLink/settle(near:)``), so that a request, the session's work
/// and the writes to its members stay on one thread (``LiveSession`` is an actor with this
/// executor). Without a server,
/// ``SerialQueueSessionExecutors`` gives each session a serial dispatch queue.
public protocol SessionExecutors: Sendable {
    /// The executor of a new session whose first member arrives through `link`; nil for a
    /// session rebuilt from the journal or adopted from another node (no member yet).
    func executor(near link: (any ParticipantLink)?) -> any SerialExecutor

    /// The executor of the ``Hub`` actor (the registry of sessions, join codes and seats). On
    /// a thread the sessions use, a join reaches the registry and its session without waking
    /// another thread. By default a serial dispatch queue of its own.
    func hubExecutor() -> any SerialExecutor

    /// A task executor that runs its jobs on the same thread as session executor `executor`, if
    /// there is one: work that visits every session of one executor in turn (the clock's ticks)
    /// runs there and reaches each of them without a thread switch. By default nil (each visit
    /// hops to the session and back).
    func taskExecutor(sharing executor: any SerialExecutor) -> (any TaskExecutor)?
}

extension SessionExecutors {
    public func hubExecutor() -> any SerialExecutor {
        SerialQueueExecutor(label: "sessionhub.hub")
    }

    public func taskExecutor(sharing executor: any SerialExecutor) -> (any TaskExecutor)? {
        nil
    }
}
