import WebSocket

/// Why a client connection could not be opened.
public enum WebSocketClientError: Error, Sendable, CustomStringConvertible {
    /// The server answered the upgrade with this status (and body prefix).
    case upgradeRefused(status: Int, body: String)
    /// The server's 101 response broke RFC 6455 §4.1.
    case invalidHandshake(ClientHandshakeError)
    /// The server's permessage-deflate answer was invalid.
    case invalidExtension(PerMessageDeflateError)
    /// The connection closed during the handshake.
    case connectionClosed
    /// The TLS configuration of a `wss://` connection could not be used.
    case tls(String)

    /// A readable message.
    public var description: String {
        switch self {
        case .upgradeRefused(let status, let body): return "upgrade refused with HTTP \(status): \(body)"
        case .invalidHandshake(let error): return "invalid handshake response: \(error)"
        case .invalidExtension(let error): return "invalid permessage-deflate response: \(error)"
        case .connectionClosed: return "connection closed during the handshake"
        case .tls(let why): return "TLS: \(why)"
        }
    }
}
