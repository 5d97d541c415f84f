/// The server side of the WebSocket opening handshake (RFC 6455 §4.2), with no I/O.
public enum ServerHandshake {
    /// Decides whether `request` is an acceptable WebSocket upgrade.
    ///
    /// Checks, in this order (the first failure decides the response):
    /// 1. At most ``ServerHandshakeConfiguration/maxHeaderCount`` header fields and
    ///    ``ServerHandshakeConfiguration/maxHeaderBytes`` bytes of names and values, else **431**.
    /// 2. The method is `GET`, else **405** with `Allow: GET` (§4.2.1 item 1).
    /// 3. HTTP/1.1 or later, else **400** (§4.2.1 item 1).
    /// 4. Exactly one non-empty `Host` (§4.2.1 item 2), else **400**.
    /// 5. `Upgrade` lists the token `websocket` (§4.2.1 item 3), else **400**.
    /// 6. `Connection` lists the token `Upgrade` (§4.2.1 item 4), else **400**.
    ///    Tokens compare ignoring ASCII case; repeated fields combine.
    /// 7. `Sec-WebSocket-Version` is exactly `13` (§4.2.1 item 6), else **426** carrying
    ///    `Sec-WebSocket-Version: 13` (§4.2.2 item 4). A missing version (pre-RFC drafts) also gets 426.
    /// 8. Exactly one `Sec-WebSocket-Key`, canonical base64 of 16 bytes (§4.2.1 item 5), else **400**.
    /// 9. At most one `Origin`, else **400**; the origin policy allows it, else **403** (§4.2.2 item 1, §10.2).
    ///
    /// Then picks the subprotocol: the first entry of the server's list that appears among the
    /// client's `Sec-WebSocket-Protocol` tokens (the field may repeat and hold comma-separated
    /// lists), or none. `Sec-WebSocket-Extensions` values are passed on unparsed.
    ///
    /// The result depends only on the arguments (no clock, no randomness).
    public static func evaluate(
        _ request: HandshakeRequest,
        configuration: ServerHandshakeConfiguration = .default
    ) -> Result<AcceptedUpgrade, HandshakeRejection> {
        if request.headers.count > configuration.maxHeaderCount {
            return .failure(.headersTooLarge("Too many header fields (limit \(configuration.maxHeaderCount))"))
        }
        var headerBytes = 0
        for header in request.headers {
            headerBytes += header.name.utf8.count + header.value.utf8.count
        }
        if headerBytes > configuration.maxHeaderBytes {
            return .failure(.headersTooLarge("Header fields too large (limit \(configuration.maxHeaderBytes) bytes)"))
        }

        guard request.method == "GET" else {
            return .failure(.methodNotAllowed())
        }
        guard request.versionMajor > 1 || (request.versionMajor == 1 && request.versionMinor >= 1) else {
            return .failure(.badRequest("WebSocket upgrade requires HTTP/1.1 or later"))
        }

        let hosts = request.values(of: "Host")
        guard hosts.count == 1 else {
            return .failure(.badRequest(hosts.isEmpty ? "Missing Host header" : "Repeated Host header"))
        }
        guard let host = hosts.first, !HTTPHeaderTokens.trimmingWhitespace(host).isEmpty else {
            return .failure(.badRequest("Empty Host header"))
        }

        guard HTTPHeaderTokens.contains(request.values(of: "Upgrade"), token: "websocket") else {
            return .failure(.badRequest("Upgrade header must include \"websocket\""))
        }
        guard HTTPHeaderTokens.contains(request.values(of: "Connection"), token: "upgrade") else {
            return .failure(.badRequest("Connection header must include \"Upgrade\""))
        }

        let versions = HTTPHeaderTokens.tokens(in: request.values(of: "Sec-WebSocket-Version"))
        guard versions.count == 1, versions.first == "13" else {
            return .failure(.unsupportedVersion())
        }

        let keys = request.values(of: "Sec-WebSocket-Key")
        guard keys.count == 1, let rawKey = keys.first else {
            return .failure(.badRequest(keys.isEmpty ? "Missing Sec-WebSocket-Key header" : "Repeated Sec-WebSocket-Key header"))
        }
        let key = HTTPHeaderTokens.trimmingWhitespace(rawKey)
        guard WebSocketAccept.isValidKey(key) else {
            return .failure(.badRequest("Sec-WebSocket-Key must be base64 of 16 bytes"))
        }

        let origins = request.values(of: "Origin")
        guard origins.count <= 1 else {
            return .failure(.badRequest("Repeated Origin header"))
        }
        if let policy = configuration.originPolicy, !policy(origins.first) {
            return .failure(.forbiddenOrigin())
        }

        let offered = HTTPHeaderTokens.tokens(in: request.values(of: "Sec-WebSocket-Protocol"))
        let subprotocol = configuration.subprotocols.first { supported in
            offered.contains { $0 == supported }
        }

        return .success(AcceptedUpgrade(
            key: String(key),
            acceptValue: WebSocketAccept.value(forKey: key),
            subprotocol: subprotocol,
            extensionOffers: request.values(of: "Sec-WebSocket-Extensions"),
            request: request
        ))
    }
}
