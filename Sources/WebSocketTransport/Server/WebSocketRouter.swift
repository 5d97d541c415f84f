import NIOCore
import WebSocket

/// Decides, for every valid WebSocket upgrade request, whether and where it goes.
public protocol WebSocketRouter: Sendable {
    /// Called on the connection's event loop after the RFC 6455 checks passed; must not block.
    func route(_ upgrade: AcceptedUpgrade, remoteAddress: SocketAddress?) -> WebSocketRouteDecision
}
