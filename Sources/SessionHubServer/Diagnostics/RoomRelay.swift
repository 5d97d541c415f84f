import NIOConcurrencyHelpers
import WebSocket
import WebSocketTransport

/// The raw room relay of `/room/<name>` (the protocol of the peer benchmark kit): every text
/// message a member sends goes, unchanged, to every member of the room, the sender included.
/// A diagnostic for side-by-side benchmarks; off unless `--enable-rooms` is given.
final class RoomRelay: Sendable {
    private let rooms = NIOLockedValueBox<[String: [WebSocketSocket]]>([:])

    /// Adds a member.
    func join(_ room: String, _ socket: WebSocketSocket) {
        rooms.withLockedValue { $0[room, default: []].append(socket) }
    }

    /// Removes a member; an empty room is forgotten.
    func leave(_ room: String, _ socket: WebSocketSocket) {
        rooms.withLockedValue { rooms in
            guard var members = rooms[room] else { return }
            members.removeAll { $0 === socket }
            rooms[room] = members.isEmpty ? nil : members
        }
    }

    /// Frames `message` once and writes the same bytes to every member.
    func broadcast(_ room: String, _ message: WebSocketMessage) {
        guard let members = rooms.withLockedValue({ $0[room] }) else { return }
        let frame = PreparedFrame(message)
        for member in members { member.send(frame) }
    }
}

