import WebSocket

/// A connection's upgrade request, boxed: the handler and the socket hold it only until the
/// endpoint has seen the socket open, and an 8-byte reference in each of them costs an open
/// connection less than room for the request inline (``HandshakeRequest`` is 56 bytes).
final class UpgradeRequest: Sendable {
    let value: HandshakeRequest

    init(_ value: HandshakeRequest) {
        self.value = value
    }
}
