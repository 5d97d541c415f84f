import Dispatch
import HubDomain
import HubProtocol
import NIOCore
import WebSocket
import WebSocketTransport

/// A session's way to one participant: writes broadcasts (already framed) and replies to the
/// socket, and tells the connection's worker when the session lets go.
final class SocketParticipantLink: ParticipantLink {
    let linkId: UInt64
    private let socket: WebSocketSocket
    private let worker: HubConnectionWorker
    /// Which of the connection's session memberships this link serves (one link per join).
    let generation: Int
    private let metrics: HubMetrics

    init(socket: WebSocketSocket, worker: HubConnectionWorker, generation: Int, metrics: HubMetrics) {
        self.linkId = socket.id
        self.socket = socket
        self.worker = worker
        self.generation = generation
        self.metrics = metrics
    }

    /// The loop of the connection (where its session runs when it created it).
    var eventLoop: any EventLoop { socket.eventLoop }

    /// Moves the connection to the session's event loop when it runs on another one.
    func settle(near executor: any SerialExecutor) async {
        guard let loop = executor as? any EventLoop, !(loop === socket.eventLoop) else { return }
        if await socket.move(to: loop) { metrics.connectionMoved() }
    }

    func deliver(_ event: any EncodedEvent) {
        guard let broadcast = event as? PreparedBroadcast else { return }
        socket.send(broadcast.frame)
        metrics.delivered(broadcast.type, after: DispatchTime.now().uptimeNanoseconds &- broadcast.acceptedAt)
    }

    func deliver(contentsOf events: [any EncodedEvent]) {
        var frames: [PreparedFrame] = []
        frames.reserveCapacity(events.count)
        let now = DispatchTime.now().uptimeNanoseconds
        for case let broadcast as PreparedBroadcast in events {
            frames.append(broadcast.frame)
            metrics.delivered(broadcast.type, after: now &- broadcast.acceptedAt)
        }
        socket.send(frames)
    }

    func reply(_ reply: SessionReply) {
        socket.send(text: ServerMessageEncoder.reply(reply))
        metrics.replied()
    }

    func detach(_ reason: DetachReason) {
        // The worker hears of it first: a client that answers `left` at once must find its
        // connection already back in the lobby, however the threads are scheduled.
        worker.yield(.detached(generation: generation, reason: reason))
        if reason != .left { socket.send(text: ServerMessageEncoder.left(ref: nil, reason: reason.rawValue)) }
        // Closed here, right behind `left`, so nothing the server does next (a shutdown closing
        // every connection) can overtake it.
        if let (code, text) = Self.closing(for: reason) { socket.close(code: code, reason: text) }
    }

    /// The close that follows a detach, when the client must reconnect elsewhere: another node
    /// owns the session now (1012), or this node hands it over while stopping (1001). The client
    /// reconnects (through the front) and resumes with the token it holds.
    static func closing(for reason: DetachReason) -> (WebSocketCloseCode, String)? {
        switch reason {
        case .moved: (.serviceRestart, "session_moved: the session moved to another node; reconnect and resume")
        case .handedOver: (.goingAway, "session_handed_over: this node is stopping; reconnect and resume")
        case .replaced, .removed, .left, .ended: nil
        }
    }
}
