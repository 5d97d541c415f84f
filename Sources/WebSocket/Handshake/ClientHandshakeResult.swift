/// What a successful client handshake settled.
public struct ClientHandshakeResult: Sendable, Hashable {
    /// The subprotocol the server chose, or `nil` for none.
    public var subprotocol: String?
    /// The response's `Sec-WebSocket-Extensions` values, unparsed, for the extension negotiator.
    public var extensionHeaderValues: [String]

    /// Creates a result.
    public init(subprotocol: String?, extensionHeaderValues: [String]) {
        self.subprotocol = subprotocol
        self.extensionHeaderValues = extensionHeaderValues
    }
}
