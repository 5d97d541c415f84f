import WebSocket

/// A user inbound event that asks a ``WebSocketChannelHandler`` to start the close handshake
/// (the server sends it to every connection when it shuts down).
public struct WebSocketCloseRequest: Sendable {
    /// The code to send.
    public var code: WebSocketCloseCode
    /// The reason to send.
    public var reason: String

    /// Creates a request.
    public init(code: WebSocketCloseCode, reason: String) {
        self.code = code
        self.reason = reason
    }
}
