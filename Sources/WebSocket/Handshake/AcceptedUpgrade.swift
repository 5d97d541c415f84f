/// A request the server agreed to upgrade, with what it takes to answer 101 Switching Protocols.
public struct AcceptedUpgrade: Sendable {
    /// The client's `Sec-WebSocket-Key`, trimmed.
    public var key: String
    /// The `Sec-WebSocket-Accept` value proving the server read the key (RFC 6455 §4.2.2).
    public var acceptValue: String
    /// The subprotocol chosen from the server's list, or `nil` for none.
    public var subprotocol: String?
    /// Every `Sec-WebSocket-Extensions` value of the request, unparsed, in order.
    /// The extension negotiator (permessage-deflate) reads these and picks the response value.
    public var extensionOffers: [String]
    /// The request this upgrade answers (its path and query are for routing and authentication).
    public var request: HandshakeRequest

    /// Creates an accepted upgrade from its parts.
    public init(key: String, acceptValue: String, subprotocol: String?, extensionOffers: [String], request: HandshakeRequest) {
        self.key = key
        self.acceptValue = acceptValue
        self.subprotocol = subprotocol
        self.extensionOffers = extensionOffers
        self.request = request
    }

    /// The header fields of the 101 response: `Upgrade: websocket`, `Connection: Upgrade`,
    /// `Sec-WebSocket-Accept`, then `Sec-WebSocket-Protocol` when a subprotocol was chosen and
    /// `Sec-WebSocket-Extensions` when `extensions` is non-empty.
    ///
    /// - Parameter extensions: the negotiated extensions response value (e.g.
    ///   `"permessage-deflate; server_no_context_takeover"`), or `nil` for none.
    public func responseHeaders(extensions: String?) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [
            ("Upgrade", "websocket"),
            ("Connection", "Upgrade"),
            ("Sec-WebSocket-Accept", acceptValue),
        ]
        if let subprotocol {
            headers.append(("Sec-WebSocket-Protocol", subprotocol))
        }
        if let extensions, !HTTPHeaderTokens.trimmingWhitespace(extensions).isEmpty {
            headers.append(("Sec-WebSocket-Extensions", extensions))
        }
        return headers
    }
}
