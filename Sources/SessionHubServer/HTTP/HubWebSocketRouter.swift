import Foundation
import NIOCore
import WebSocket
import WebSocketTransport

/// Routes upgrade requests: `/ws` (the hub's protocol), `/admin/feed` (the operator dashboard's
/// live feed), and `/echo` and `/room/<name>` when enabled.
struct HubWebSocketRouter: WebSocketRouter {
    let configuration: HubServerConfiguration
    let rooms: RoomRelay
    let runtime: HubRuntime
    /// The dashboard feed behind `/admin/feed`; nil answers 404 there.
    var dashboard: DashboardFeed? = nil

    func route(_ upgrade: AcceptedUpgrade, remoteAddress: SocketAddress?, clientAddress: String?) -> WebSocketRouteDecision {
        let path = upgrade.request.path
        let options = WebSocketRouteOptions(
            configuration: WebSocketConfiguration(maxMessageSize: configuration.maxMessageSize),
            allowsCompression: configuration.compression,
            timeouts: configuration.timeouts,
            backpressure: configuration.backpressure)
        if path == "/ws" {
            // The hub's own message limit, enforced from the frame header (close 1009).
            var hubOptions = options
            hubOptions.configuration = WebSocketConfiguration(maxMessageSize: configuration.connectionLimits.maxMessageBytes)
            hubOptions.awaitsAuthentication = true
            return .accept(HubEndpoint(runtime: runtime, upgradeAuth: authenticate(upgrade.request),
                                       clientAddress: clientAddress), hubOptions)
        }
        if path == "/admin/feed" {
            guard let dashboard else { return .reject(.notFound, "no WebSocket endpoint at /admin/feed") }
            // A browser page of another site may not open it (the token is checked after the upgrade).
            guard DashboardFeed.isSameOrigin(upgrade.request) else { return .reject(.forbidden, "cross-origin feed refused") }
            var feedOptions = options
            feedOptions.configuration = WebSocketConfiguration(maxMessageSize: dashboard.settings.maxMessageBytes)
            return .accept(DashboardFeedEndpoint(feed: dashboard), feedOptions)
        }
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

    /// Checks the bearer token of the upgrade (`Authorization: Bearer …` or `?token=`); nil when
    /// none was presented (the client then has to send `auth`).
    private func authenticate(_ request: HandshakeRequest) -> Result<TokenClaims, AuthError>? {
        var token: String?
        if let header = request.values(of: "Authorization").first {
            let parts = header.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" {
                token = String(parts[1]).trimmingCharacters(in: .whitespaces)
            } else {
                return .failure(.malformed)
            }
        } else if let query = request.queryItem("token") {
            token = query
        }
        guard let token else { return nil }
        let now = Int(runtime.clock.now() / 1000)
        return Result { () throws(AuthError) -> TokenClaims in try runtime.tokens.verify(token, now: now) }
    }
}
