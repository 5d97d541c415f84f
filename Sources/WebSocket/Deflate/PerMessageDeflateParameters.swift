/// The outcome of a permessage-deflate negotiation: what both endpoints agreed on (RFC 7692 §7.1).
///
/// The server compresses with ``serverMaxWindowBits`` and the client decompresses with it; the client
/// compresses with ``clientMaxWindowBits`` and the server decompresses with it. Window bits are `8...15`;
/// 8 is only ever the result of a peer asking for it (see ``MessageDeflater``).
public struct PerMessageDeflateParameters: Sendable, Hashable {
    /// The server resets its compressor after every message (its messages never refer to earlier ones).
    public var serverNoContextTakeover: Bool
    /// The client resets its compressor after every message.
    public var clientNoContextTakeover: Bool
    /// The largest window the server's compressor may use, `8...15` (15 when not negotiated).
    public var serverMaxWindowBits: Int
    /// The largest window the client's compressor may use, `8...15` (15 when not negotiated).
    public var clientMaxWindowBits: Int
    /// Whether the response names `server_max_window_bits` (required when the client offered it,
    /// otherwise only when ``serverMaxWindowBits`` is below 15).
    public var respondsWithServerMaxWindowBits: Bool
    /// Whether the response names `client_max_window_bits` (allowed only when the client offered it).
    public var respondsWithClientMaxWindowBits: Bool

    /// Creates parameters. By default a window bits value is named in ``headerValue`` only when below 15.
    public init(
        serverNoContextTakeover: Bool = false,
        clientNoContextTakeover: Bool = false,
        serverMaxWindowBits: Int = 15,
        clientMaxWindowBits: Int = 15,
        respondsWithServerMaxWindowBits: Bool? = nil,
        respondsWithClientMaxWindowBits: Bool? = nil
    ) {
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientNoContextTakeover = clientNoContextTakeover
        self.serverMaxWindowBits = serverMaxWindowBits
        self.clientMaxWindowBits = clientMaxWindowBits
        self.respondsWithServerMaxWindowBits = respondsWithServerMaxWindowBits ?? (serverMaxWindowBits < 15)
        self.respondsWithClientMaxWindowBits = respondsWithClientMaxWindowBits ?? (clientMaxWindowBits < 15)
    }

    /// The `Sec-WebSocket-Extensions` value the server sends back, for example
    /// `permessage-deflate; server_no_context_takeover; client_max_window_bits=15`.
    public var headerValue: String {
        var value = PerMessageDeflateNegotiation.extensionName
        if self.serverNoContextTakeover {
            value += "; server_no_context_takeover"
        }
        if self.clientNoContextTakeover {
            value += "; client_no_context_takeover"
        }
        if self.respondsWithServerMaxWindowBits {
            value += "; server_max_window_bits=\(self.serverMaxWindowBits)"
        }
        if self.respondsWithClientMaxWindowBits {
            value += "; client_max_window_bits=\(self.clientMaxWindowBits)"
        }
        return value
    }
}
