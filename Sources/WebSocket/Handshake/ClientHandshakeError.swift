/// Why a client refused the server's answer to its opening handshake (RFC 6455 §4.1).
/// The client must then fail the WebSocket connection (§7.1.7) without sending any frames.
public enum ClientHandshakeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The status was not 101 Switching Protocols.
    case unexpectedStatus(Int)
    /// The response had no `Upgrade` header field.
    case missingUpgrade
    /// The `Upgrade` value was not `websocket` (ignoring ASCII case).
    case invalidUpgrade(String)
    /// The `Connection` header field was absent or did not list `Upgrade`.
    case missingConnectionUpgrade
    /// The response had no `Sec-WebSocket-Accept` header field.
    case missingAccept
    /// `Sec-WebSocket-Accept` was repeated or did not match the key we sent.
    case badAccept
    /// The server chose a subprotocol we did not offer, chose more than one, or sent an empty one.
    case unexpectedSubprotocol(String)
    /// The server answered with extensions although we offered none.
    case unexpectedExtensions

    /// A short explanation for logs.
    public var description: String {
        switch self {
        case .unexpectedStatus(let status): "server answered \(status) instead of 101"
        case .missingUpgrade: "response lacks Upgrade: websocket"
        case .invalidUpgrade(let value): "response Upgrade is \"\(value)\", not websocket"
        case .missingConnectionUpgrade: "response Connection header does not include Upgrade"
        case .missingAccept: "response lacks Sec-WebSocket-Accept"
        case .badAccept: "Sec-WebSocket-Accept does not match the key"
        case .unexpectedSubprotocol(let value): "server selected subprotocol \"\(value)\" that was not offered"
        case .unexpectedExtensions: "server selected extensions although none were offered"
        }
    }
}
