import NIOCore
import WebSocket

/// Decides, for every valid WebSocket upgrade request, whether and where it goes.
public protocol WebSocketRouter: Sendable {
    /// Called on the connection's event loop after the RFC 6455 checks passed; must not block.
    /// `clientAddress` is the client's IP address as the connection caps count it: the last
    /// `X-Forwarded-For` hop behind a trusted proxy, else the peer's address.
    func route(_ upgrade: AcceptedUpgrade, remoteAddress: SocketAddress?, clientAddress: String?) -> WebSocketRouteDecision
}
