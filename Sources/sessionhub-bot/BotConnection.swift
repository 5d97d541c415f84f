import NIOPosix
import WebSocketTransport

/// Opens a player's WebSocket connection to the hub, authenticated with
/// `Authorization: Bearer <token>` on the upgrade (section 3 of `docs/PROTOCOL.md`).
enum BotConnection {
    /// Connects to `url` as the token's user; permessage-deflate is offered.
    static func open(url: WebSocketURL, token: String) async throws -> WebSocketClientConnection {
        let configuration = WebSocketClientConfiguration(headers: [(name: "Authorization", value: "Bearer \(token)")])
        return try await WebSocketClient.connect(to: url, configuration: configuration, group: MultiThreadedEventLoopGroup.singleton)
    }
}
