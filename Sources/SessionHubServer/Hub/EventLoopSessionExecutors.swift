import HubDomain
import NIOCore

/// Runs each live session on an event loop: the loop of the connection that creates it (so the
/// creator's requests, the session's work and the writes to members on that loop need no
/// thread switch), or the group's next loop for a session rebuilt or adopted without a member.
struct EventLoopSessionExecutors: SessionExecutors {
    let group: any EventLoopGroup

    func executor(near link: (any ParticipantLink)?) -> any SerialExecutor {
        let loop = (link as? SocketParticipantLink)?.eventLoop ?? group.next()
        return loop.executor
    }
}
