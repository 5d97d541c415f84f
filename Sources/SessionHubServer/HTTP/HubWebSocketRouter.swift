import NIOCore
import WebSocket
import WebSocketTransport

/// Routes upgrade requests: `/echo` and `/room/<name>` when enabled.
struct HubWebSocketRouter: WebSocketRouter {
    let configuration: HubServerConfiguration
    let rooms: RoomRelay

    func route(_ upgrade: AcceptedUpgrade, remoteAddress: SocketAddress?) -> WebSocketRouteDecision {
        let path = upgrade.request.path
        let options = WebSocketRouteOptions(
            configuration: WebSocketConfiguration(maxMessageSize: configuration.maxMessageSize),
            allowsCompression: configuration.compression,
            timeouts: configuration.timeouts)
        if path == "/echo" {
            guard configuration.enableEcho else { return .reject(.notFound, "echo endpoint is disabled (start with --enable-echo)") }
            return .accept(EchoEndpoint(), options)
        }
        if path.hasPrefix("/room/") {
            guard configuration.enableRooms else { return .reject(.notFound, "room relay is disabled (start with --enable-rooms)") }
            let name = String(path.dropFirst("/room/".count))
            guard !name.isEmpty, name.utf8.count <= 200 else { return .reject(.badRequest, "room name must be 1 to 200 bytes") }
            return .accept(RoomEndpoint(relay: rooms, room: name), options)
        }
        return .reject(.notFound, "no WebSocket endpoint at \(path.prefix(100))")
    }
}
