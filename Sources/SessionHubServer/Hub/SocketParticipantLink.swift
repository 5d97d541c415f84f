import HubDomain
import HubProtocol
import WebSocketTransport

/// A session's way to one participant: writes broadcasts (already framed) and replies to the
/// socket, and tells the connection's worker when the session lets go.
final class SocketParticipantLink: ParticipantLink {
    let linkId: UInt64
    private let socket: WebSocketSocket
    private let inputs: AsyncStream<ConnectionInput>.Continuation
    /// Which of the connection's session memberships this link serves (one link per join).
    let generation: Int

    init(socket: WebSocketSocket, inputs: AsyncStream<ConnectionInput>.Continuation, generation: Int) {
        self.linkId = socket.id
        self.socket = socket
        self.inputs = inputs
        self.generation = generation
    }

    func deliver(_ event: any EncodedEvent) {
        if let broadcast = event as? PreparedBroadcast { socket.send(broadcast.frame) }
    }

    func reply(_ reply: SessionReply) {
        socket.send(text: ServerMessageEncoder.reply(reply))
    }

    func detach(_ reason: DetachReason) {
        // The worker hears of it first: a client that answers `left` at once must find its
        // connection already back in the lobby, however the threads are scheduled.
        inputs.yield(.detached(generation: generation, reason: reason))
        if reason != .left { socket.send(text: ServerMessageEncoder.left(ref: nil, reason: reason.rawValue)) }
    }
}
