import WebSocket

/// The application side of one WebSocket connection.
///
/// Every callback runs on the connection's event loop, in order, and must not block: hand slow
/// work to a task or an actor. An endpoint belongs to one connection and is never shared, so it
/// may keep per-connection state without locks.
public protocol WebSocketEndpoint: AnyObject {
    /// The connection is open; `socket` stays valid for its whole life.
    func webSocketDidOpen(_ socket: WebSocketSocket)
    /// A complete message arrived.
    func webSocket(_ socket: WebSocketSocket, didReceive message: WebSocketMessage)
    /// The connection is gone: after the close handshake, a protocol failure, a timeout or a
    /// dropped TCP connection (`code` is nil when none was received; 1006 semantics).
    func webSocketDidClose(_ socket: WebSocketSocket, code: WebSocketCloseCode?, reason: String)
}

extension WebSocketEndpoint {
    /// Default: nothing to do on open.
    public func webSocketDidOpen(_ socket: WebSocketSocket) {}
    /// Default: nothing to do on close.
    public func webSocketDidClose(_ socket: WebSocketSocket, code: WebSocketCloseCode?, reason: String) {}
}
