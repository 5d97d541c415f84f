/// What a server accepts in the opening handshake (RFC 6455 §4.2).
public struct ServerHandshakeConfiguration: Sendable {
    /// The subprotocols this endpoint speaks, most preferred first; empty when it speaks none.
    ///
    /// The server picks the first entry of this list that the client offered (names compare
    /// case-sensitively, as clients check the echoed name exactly).
    public var subprotocols: [String]

    /// Decides whether a request with the given `Origin` value (or `nil` when absent) may connect;
    /// `nil` allows every origin and requests without one. A refusal answers 403 (RFC 6455 §4.2.2).
    ///
    /// Browsers always send `Origin`; checking it is the defence against cross-site WebSocket
    /// hijacking. See ``allowingOrigins(_:allowMissingOrigin:)``.
    public var originPolicy: (@Sendable (String?) -> Bool)?

    /// The most header fields a request may carry before it is refused with 431.
    public var maxHeaderCount: Int

    /// The most bytes (UTF-8 length of all names plus all values) a request's header fields may
    /// take before it is refused with 431.
    public var maxHeaderBytes: Int

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - subprotocols: supported subprotocols in preference order (default: none).
    ///   - originPolicy: the `Origin` check (default: allow all).
    ///   - maxHeaderCount: the header field count limit (default 64).
    ///   - maxHeaderBytes: the header size limit in bytes (default 8 KiB).
    public init(
        subprotocols: [String] = [],
        originPolicy: (@Sendable (String?) -> Bool)? = nil,
        maxHeaderCount: Int = 64,
        maxHeaderBytes: Int = 8 * 1024
    ) {
        self.subprotocols = subprotocols
        self.originPolicy = originPolicy
        self.maxHeaderCount = maxHeaderCount
        self.maxHeaderBytes = maxHeaderBytes
    }

    /// No subprotocols, every origin, 64 header fields, 8 KiB of headers.
    public static let `default` = ServerHandshakeConfiguration()

    /// An origin policy that admits exactly the listed origins (serialized as browsers send them,
    /// e.g. `"https://example.com"` or `"http://localhost:8080"`, compared ignoring ASCII case),
    /// and requests without `Origin` when `allowMissingOrigin` is true (non-browser clients
    /// usually send none).
    public static func allowingOrigins(
        _ origins: some Sequence<String>,
        allowMissingOrigin: Bool = true
    ) -> @Sendable (String?) -> Bool {
        let allowed = Set(origins.map { HTTPHeaderTokens.asciiLowercased($0) })
        return { origin in
            guard let origin else { return allowMissingOrigin }
            return allowed.contains(HTTPHeaderTokens.asciiLowercased(HTTPHeaderTokens.trimmingWhitespace(origin)))
        }
    }
}
