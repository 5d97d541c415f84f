import NIOCore

/// What ``WebSocketConnection/nextEvent()`` hands the application.
public enum WebSocketEvent: Sendable, Equatable {
    /// A complete text message; its bytes are valid UTF-8. The buffer has
    /// ``WebSocketConfiguration/messageHeadroom`` bytes of headroom before its reader index.
    case text(ByteBuffer)
    /// A complete binary message (same headroom as text).
    case binary(ByteBuffer)
    /// A ping; when ``WebSocketConfiguration/replyToPings`` is on, the pong is already queued.
    case ping(ByteBuffer)
    /// A pong.
    case pong(ByteBuffer)
    /// The close handshake finished (or the peer started it and our reply is queued).
    /// `code` is nil when the peer's close frame carried no status (1005).
    case closed(code: WebSocketCloseCode?, reason: String, initiatedByPeer: Bool)
    /// The peer broke the protocol; a close frame with the matching code is queued and the
    /// transport should flush it and close the TCP connection.
    case failed(WebSocketProtocolError)
}
