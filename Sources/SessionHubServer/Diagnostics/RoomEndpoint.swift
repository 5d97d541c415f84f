import NIOConcurrencyHelpers
import WebSocket
import WebSocketTransport

/// One member's connection to a ``RoomRelay`` room.
final class RoomEndpoint: WebSocketEndpoint {
    private let relay: RoomRelay
    private let room: String

    init(relay: RoomRelay, room: String) {
        self.relay = relay
        self.room = room
    }

    func webSocketDidOpen(_ socket: WebSocketSocket) {
        relay.join(room, socket)
    }

    func webSocket(_ socket: WebSocketSocket, didReceive message: WebSocketMessage) {
        if case .text = message { relay.broadcast(room, message) }
    }

    func webSocketDidClose(_ socket: WebSocketSocket, code: WebSocketCloseCode?, reason: String) {
        relay.leave(room, socket)
    }
}
