/// Gives every session its own ``SerialQueueExecutor``: the default when nothing places
/// sessions (tests, tools).
public struct SerialQueueSessionExecutors: SessionExecutors {
    /// Session executors on dispatch queues.
    public init() {}

    public func executor(near link: (any ParticipantLink)?) -> any SerialExecutor {
        SerialQueueExecutor(label: "sessionhub.session")
    }
}
