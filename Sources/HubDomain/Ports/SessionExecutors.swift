/// Where each live session's actor runs (its serial executor).
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
}
