/// Which end of the connection this endpoint is; it decides masking (RFC 6455 §5.1) and who
/// closes the TCP connection after the close handshake (§7.1.1: the server).
public enum WebSocketRole: Sendable, Hashable {
    /// The server: every received frame must be masked; sent frames are never masked.
    case server
    /// The client: received frames must not be masked; every sent frame is masked.
    case client
}
