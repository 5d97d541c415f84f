/// The client side of the WebSocket opening handshake (RFC 6455 §4.1), with no I/O:
/// builds the request's header fields and validates the server's response.
public struct ClientHandshake: Sendable {
    /// The `Host` value: host, plus `:port` when it is not the scheme's default.
    public let host: String
    /// The request-target to send on the request line, e.g. `"/chat?token=abc"`.
    public let target: String
    /// The `Origin` value to send, if any (browsers always send one; other clients may).
    public let origin: String?
    /// The subprotocols offered, in our preference order.
    public let subprotocols: [String]
    /// The `Sec-WebSocket-Extensions` offer, if any (built by the extension negotiator); a blank
    /// offer is not sent.
    public let extensionOffer: String?
    /// Further header fields to send (authentication, cookies), after the handshake's own fields.
    public let extraHeaders: [(name: String, value: String)]
    /// The `Sec-WebSocket-Key` sent: base64 of 16 random bytes.
    public let key: String
    /// The `Sec-WebSocket-Accept` value the server must answer with.
    public let expectedAccept: String

    /// Prepares a handshake.
    ///
    /// - Parameters:
    ///   - host: the `Host` value (host and non-default port).
    ///   - target: the request-target (path and query).
    ///   - origin: the `Origin` value, or `nil` to send none.
    ///   - subprotocols: subprotocols to offer, or none.
    ///   - extensionOffer: the `Sec-WebSocket-Extensions` value to send, or `nil`.
    ///   - extraHeaders: more header fields to send.
    ///   - key: the `Sec-WebSocket-Key`; `nil` (the default, and the only correct choice outside
    ///     tests) draws 16 fresh bytes from `SystemRandomNumberGenerator` (§4.1 item 7).
    public init(
        host: String,
        target: String,
        origin: String? = nil,
        subprotocols: [String] = [],
        extensionOffer: String? = nil,
        extraHeaders: [(name: String, value: String)] = [],
        key: String? = nil
    ) {
        self.host = host
        self.target = target
        self.origin = origin
        self.subprotocols = subprotocols
        self.extensionOffer = extensionOffer
        self.extraHeaders = extraHeaders
        let key = key ?? WebSocketAccept.makeKey()
        self.key = key
        self.expectedAccept = WebSocketAccept.value(forKey: key)
    }

    /// The header fields to send with `GET <target> HTTP/1.1`: `Host`, `Upgrade: websocket`,
    /// `Connection: Upgrade`, `Sec-WebSocket-Key`, `Sec-WebSocket-Version: 13`, then `Origin`,
    /// `Sec-WebSocket-Protocol` (comma-separated) and `Sec-WebSocket-Extensions` when given,
    /// then ``extraHeaders``.
    public var requestHeaders: [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [
            ("Host", host),
            ("Upgrade", "websocket"),
            ("Connection", "Upgrade"),
            ("Sec-WebSocket-Key", key),
            ("Sec-WebSocket-Version", "13"),
        ]
        if let origin {
            headers.append(("Origin", origin))
        }
        if !subprotocols.isEmpty {
            headers.append(("Sec-WebSocket-Protocol", subprotocols.joined(separator: ", ")))
        }
        if offersExtensions, let extensionOffer {
            headers.append(("Sec-WebSocket-Extensions", extensionOffer))
        }
        headers.append(contentsOf: extraHeaders)
        return headers
    }

    /// Whether the request offers extensions (``extensionOffer`` is present and not blank).
    public var offersExtensions: Bool {
        guard let extensionOffer else { return false }
        return !HTTPHeaderTokens.trimmingWhitespace(extensionOffer).isEmpty
    }

    /// Validates the server's response head (RFC 6455 §4.1, the client's requirements):
    /// status 101; `Upgrade` is `websocket` and `Connection` lists `Upgrade` (ignoring ASCII case);
    /// exactly one `Sec-WebSocket-Accept`, equal to ``expectedAccept``; at most one
    /// `Sec-WebSocket-Protocol`, naming one subprotocol we offered; `Sec-WebSocket-Extensions`
    /// only if we offered extensions. Whether the chosen extensions match the offer in detail is
    /// for the extension negotiator, which gets the values in the result.
    public func validate(
        status: Int,
        headers: [(name: String, value: String)]
    ) throws(ClientHandshakeError) -> ClientHandshakeResult {
        guard status == 101 else {
            throw .unexpectedStatus(status)
        }
        func values(_ name: String) -> [String] {
            headers.compactMap { HTTPHeaderTokens.equalsIgnoringASCIICase($0.name, name) ? $0.value : nil }
        }

        let upgrades = values("Upgrade")
        guard !upgrades.isEmpty else {
            throw .missingUpgrade
        }
        let upgradeTokens = HTTPHeaderTokens.tokens(in: upgrades)
        guard upgradeTokens.count == 1, let upgrade = upgradeTokens.first,
              HTTPHeaderTokens.equalsIgnoringASCIICase(upgrade, "websocket")
        else {
            throw .invalidUpgrade(upgrades.joined(separator: ", "))
        }
        guard HTTPHeaderTokens.contains(values("Connection"), token: "upgrade") else {
            throw .missingConnectionUpgrade
        }

        let accepts = values("Sec-WebSocket-Accept")
        guard let accept = accepts.first else {
            throw .missingAccept
        }
        guard accepts.count == 1, HTTPHeaderTokens.trimmingWhitespace(accept) == expectedAccept else {
            throw .badAccept
        }

        let protocolValues = values("Sec-WebSocket-Protocol")
        var subprotocol: String?
        if !protocolValues.isEmpty {
            let chosen = protocolValues.joined(separator: ", ")
            let tokens = HTTPHeaderTokens.tokens(in: protocolValues)
            guard protocolValues.count == 1, tokens.count == 1, let token = tokens.first,
                  subprotocols.contains(where: { $0 == token })
            else {
                throw .unexpectedSubprotocol(chosen)
            }
            subprotocol = String(token)
        }

        let extensionValues = values("Sec-WebSocket-Extensions")
        if !extensionValues.isEmpty && !offersExtensions {
            throw .unexpectedExtensions
        }

        return ClientHandshakeResult(subprotocol: subprotocol, extensionHeaderValues: extensionValues)
    }
}

