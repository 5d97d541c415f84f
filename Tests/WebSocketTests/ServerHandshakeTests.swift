import Testing
@testable import WebSocket

@Suite("Server opening handshake (RFC 6455 §4.2)")
struct ServerHandshakeTests {
    private static let sampleKey = "dGhlIHNhbXBsZSBub25jZQ=="
    private static let sampleAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

    /// The RFC 6455 §1.3 example request, minus headers named in `removing`, plus `adding`.
    private static func request(
        method: String = "GET",
        target: String = "/chat",
        version: (Int, Int) = (1, 1),
        removing: [String] = [],
        adding: [(name: String, value: String)] = []
    ) -> HandshakeRequest {
        var headers: [(name: String, value: String)] = [
            ("Host", "server.example.com"),
            ("Upgrade", "websocket"),
            ("Connection", "Upgrade"),
            ("Sec-WebSocket-Key", sampleKey),
            ("Sec-WebSocket-Version", "13"),
        ]
        headers.removeAll { header in removing.contains { HTTPHeaderTokens.equalsIgnoringASCIICase($0, header.name) } }
        headers.append(contentsOf: adding)
        return HandshakeRequest(method: method, target: target, versionMajor: version.0, versionMinor: version.1, headers: headers)
    }

    private static func rejection(
        _ request: HandshakeRequest,
        _ configuration: ServerHandshakeConfiguration = .default
    ) -> HandshakeRejection? {
        if case .failure(let rejection) = ServerHandshake.evaluate(request, configuration: configuration) { return rejection }
        return nil
    }

    private static func accepted(
        _ request: HandshakeRequest,
        _ configuration: ServerHandshakeConfiguration = .default
    ) throws -> AcceptedUpgrade {
        try ServerHandshake.evaluate(request, configuration: configuration).get()
    }

    private static func header(_ name: String, in headers: [(name: String, value: String)]) -> [String] {
        headers.filter { $0.name == name }.map(\.value)
    }

    // MARK: Acceptance

    @Test func acceptsTheRFCExample() throws {
        let upgrade = try Self.accepted(Self.request(adding: [("Origin", "http://example.com")]))
        #expect(upgrade.key == Self.sampleKey)
        #expect(upgrade.acceptValue == Self.sampleAccept)
        #expect(upgrade.subprotocol == nil)
        #expect(upgrade.extensionOffers.isEmpty)
        #expect(upgrade.request.path == "/chat")

        let headers = upgrade.responseHeaders(extensions: nil)
        #expect(headers.map(\.name) == ["Upgrade", "Connection", "Sec-WebSocket-Accept"])
        #expect(headers.map(\.value) == ["websocket", "Upgrade", Self.sampleAccept])
    }

    @Test func acceptsLaterHTTPVersions() throws {
        _ = try Self.accepted(Self.request(version: (1, 2)))
        _ = try Self.accepted(Self.request(version: (2, 0)))
    }

    @Test func tokenListsAreCaseInsensitiveAndMayHoldSeveralTokens() throws {
        let request = Self.request(removing: ["Upgrade", "Connection"], adding: [
            ("upgrade", "WebSocket"),
            ("CONNECTION", "keep-alive, Upgrade"),
        ])
        _ = try Self.accepted(request)

        let lowercased = Self.request(removing: ["Upgrade", "Connection"], adding: [
            ("Upgrade", "h2c,  WEBSOCKET "),
            ("Connection", "keep-alive"),
            ("Connection", "upgrade"),
        ])
        _ = try Self.accepted(lowercased)

        let headerNames = Self.request(removing: ["Sec-WebSocket-Key", "Sec-WebSocket-Version"], adding: [
            ("sec-websocket-key", "  \(Self.sampleKey)\t"),
            ("SEC-WEBSOCKET-VERSION", "13"),
        ])
        #expect(try Self.accepted(headerNames).acceptValue == Self.sampleAccept)
    }

    @Test func isDeterministic() throws {
        let request = Self.request(adding: [("Sec-WebSocket-Protocol", "chat")])
        let configuration = ServerHandshakeConfiguration(subprotocols: ["chat"])
        let first = try Self.accepted(request, configuration)
        let second = try Self.accepted(request, configuration)
        #expect(first.acceptValue == second.acceptValue)
        #expect(first.subprotocol == second.subprotocol)
    }

    // MARK: Rejections and their statuses

    @Test(arguments: ["POST", "PUT", "HEAD", "get", "CONNECT"])
    func wrongMethodIs405WithAllow(method: String) throws {
        let rejection = try #require(Self.rejection(Self.request(method: method)))
        #expect(rejection.status == 405)
        #expect(Self.header("Allow", in: rejection.headers) == ["GET"])
    }

    @Test func http10IsRejected() throws {
        let rejection = try #require(Self.rejection(Self.request(version: (1, 0))))
        #expect(rejection.status == 400)
        #expect(try #require(Self.rejection(Self.request(version: (0, 9)))).status == 400)
    }

    @Test func hostMustAppearExactlyOnceAndNotBeEmpty() throws {
        #expect(try #require(Self.rejection(Self.request(removing: ["Host"]))).status == 400)
        let duplicate = Self.request(adding: [("host", "evil.example.com")])
        #expect(try #require(Self.rejection(duplicate)).status == 400)
        let empty = Self.request(removing: ["Host"], adding: [("Host", " ")])
        #expect(try #require(Self.rejection(empty)).status == 400)
    }

    @Test func upgradeMustListWebsocket() throws {
        #expect(try #require(Self.rejection(Self.request(removing: ["Upgrade"]))).status == 400)
        let other = Self.request(removing: ["Upgrade"], adding: [("Upgrade", "h2c")])
        #expect(try #require(Self.rejection(other)).status == 400)
        let prefix = Self.request(removing: ["Upgrade"], adding: [("Upgrade", "websockets")])
        #expect(try #require(Self.rejection(prefix)).status == 400)
    }

    @Test func connectionMustListUpgrade() throws {
        #expect(try #require(Self.rejection(Self.request(removing: ["Connection"]))).status == 400)
        let keepAlive = Self.request(removing: ["Connection"], adding: [("Connection", "keep-alive")])
        #expect(try #require(Self.rejection(keepAlive)).status == 400)
        let substring = Self.request(removing: ["Connection"], adding: [("Connection", "keep-alive-Upgrade")])
        #expect(try #require(Self.rejection(substring)).status == 400)
    }

    @Test(arguments: [["8"], ["12"], ["13, 8"], ["13", "13"], [""], ["thirteen"]])
    func unsupportedVersionIs426WithVersionHeader(values: [String]) throws {
        let request = Self.request(removing: ["Sec-WebSocket-Version"], adding: values.map { ("Sec-WebSocket-Version", $0) })
        let rejection = try #require(Self.rejection(request))
        #expect(rejection.status == 426)
        #expect(Self.header("Sec-WebSocket-Version", in: rejection.headers) == ["13"])
        #expect(Self.header("Upgrade", in: rejection.headers) == ["websocket"])
    }

    @Test func missingVersionIs426() throws {
        let rejection = try #require(Self.rejection(Self.request(removing: ["Sec-WebSocket-Version"])))
        #expect(rejection.status == 426)
        #expect(Self.header("Sec-WebSocket-Version", in: rejection.headers) == ["13"])
    }

    @Test func keyMustBePresentOnce() throws {
        #expect(try #require(Self.rejection(Self.request(removing: ["Sec-WebSocket-Key"]))).status == 400)
        let duplicate = Self.request(adding: [("Sec-WebSocket-Key", "AAECAwQFBgcICQoLDA0ODw==")])
        #expect(try #require(Self.rejection(duplicate)).status == 400)
        let sameTwice = Self.request(adding: [("Sec-WebSocket-Key", Self.sampleKey)])
        #expect(try #require(Self.rejection(sameTwice)).status == 400)
    }

    @Test(arguments: [
        "AAECAwQFBgcICQoLDA0O",           // 15 bytes
        "AAECAwQFBgcICQoLDA0ODxA=",       // 17 bytes
        "dGhlIHNhbXBsZSBub25jZQ",         // no padding
        "dGhlIHNhbXBsZSBub25jZ*==",       // bad character
        "dGhlIHNhbXBsZSBub25jZR==",       // non-zero padding bits
        "dGhlIHNhbXBs ZSBub25jZQ==",      // inner space
        "",
        "the sample nonce",               // 16 bytes, but not base64 of them
    ])
    func malformedKeyIs400(key: String) throws {
        let request = Self.request(removing: ["Sec-WebSocket-Key"], adding: [("Sec-WebSocket-Key", key)])
        #expect(try #require(Self.rejection(request)).status == 400)
    }

    @Test func tooManyHeadersIs431() throws {
        let configuration = ServerHandshakeConfiguration(maxHeaderCount: 6)
        _ = try Self.accepted(Self.request(adding: [("X-One", "1")]), configuration)
        let request = Self.request(adding: [("X-One", "1"), ("X-Two", "2")])
        #expect(try #require(Self.rejection(request, configuration)).status == 431)

        let flood = Self.request(adding: (0..<100).map { ("X-Filler", "\($0)") })
        #expect(try #require(Self.rejection(flood)).status == 431)
    }

    @Test func tooLargeHeadersIs431() throws {
        let base = Self.request()
        let baseBytes = base.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
        let exact = ServerHandshakeConfiguration(maxHeaderBytes: baseBytes)
        _ = try Self.accepted(base, exact)
        let oneOver = ServerHandshakeConfiguration(maxHeaderBytes: baseBytes - 1)
        #expect(try #require(Self.rejection(base, oneOver)).status == 431)

        let big = Self.request(adding: [("Cookie", String(repeating: "x", count: 9 * 1024))])
        #expect(try #require(Self.rejection(big)).status == 431)
    }

    @Test func limitsAreCheckedBeforeEverythingElse() throws {
        let request = Self.request(method: "POST", adding: (0..<100).map { ("X-Filler", "\($0)") })
        #expect(try #require(Self.rejection(request)).status == 431)
    }

    @Test func rejectionsDoNotEchoHeaderValues() throws {
        let marker = "<script>secret</script>"
        let request = Self.request(removing: ["Sec-WebSocket-Key"], adding: [("Sec-WebSocket-Key", marker)])
        let rejection = try #require(Self.rejection(request))
        #expect(!rejection.reason.contains(marker))
        #expect(!rejection.reason.isEmpty)
    }

    // MARK: Origin

    @Test func originPolicySeesTheOriginAndCanRefuseWith403() throws {
        let policy: @Sendable (String?) -> Bool = { $0 == "https://good.example" }
        let configuration = ServerHandshakeConfiguration(originPolicy: policy)
        _ = try Self.accepted(Self.request(adding: [("Origin", "https://good.example")]), configuration)
        let bad = try #require(Self.rejection(Self.request(adding: [("Origin", "https://evil.example")]), configuration))
        #expect(bad.status == 403)
        let none = try #require(Self.rejection(Self.request(), configuration))
        #expect(none.status == 403)
    }

    @Test func noPolicyAllowsAnyOrigin() throws {
        _ = try Self.accepted(Self.request(adding: [("Origin", "https://anything.example")]))
        _ = try Self.accepted(Self.request())
    }

    @Test func repeatedOriginIs400() throws {
        let request = Self.request(adding: [("Origin", "https://good.example"), ("Origin", "https://evil.example")])
        #expect(try #require(Self.rejection(request)).status == 400)
    }

    @Test func allowListPolicy() {
        let policy = ServerHandshakeConfiguration.allowingOrigins(["https://Good.example", "http://localhost:8080"])
        #expect(policy("https://good.example"))
        #expect(policy("HTTPS://GOOD.EXAMPLE"))
        #expect(policy("http://localhost:8080"))
        #expect(!policy("http://localhost:8081"))
        #expect(!policy("https://good.example.evil"))
        #expect(!policy("null"))
        #expect(policy(nil))
        let strict = ServerHandshakeConfiguration.allowingOrigins(["https://good.example"], allowMissingOrigin: false)
        #expect(!strict(nil))
        #expect(strict("https://good.example"))
    }

    // MARK: Subprotocols

    @Test func picksTheServersFirstPreferenceAmongOffers() throws {
        let configuration = ServerHandshakeConfiguration(subprotocols: ["v2.hub", "v1.hub"])
        let offers = Self.request(adding: [("Sec-WebSocket-Protocol", "v1.hub, v2.hub")])
        #expect(try Self.accepted(offers, configuration).subprotocol == "v2.hub")

        let repeated = Self.request(adding: [("Sec-WebSocket-Protocol", "other"), ("sec-websocket-protocol", "v1.hub ,x")])
        #expect(try Self.accepted(repeated, configuration).subprotocol == "v1.hub")

        let reversed = ServerHandshakeConfiguration(subprotocols: ["v1.hub", "v2.hub"])
        #expect(try Self.accepted(offers, reversed).subprotocol == "v1.hub")
    }

    @Test func noCommonSubprotocolMeansNone() throws {
        let configuration = ServerHandshakeConfiguration(subprotocols: ["v1.hub"])
        let upgrade = try Self.accepted(Self.request(adding: [("Sec-WebSocket-Protocol", "mqtt, V1.HUB")]), configuration)
        #expect(upgrade.subprotocol == nil)
        #expect(Self.header("Sec-WebSocket-Protocol", in: upgrade.responseHeaders(extensions: nil)).isEmpty)

        let unsupported = try Self.accepted(Self.request(adding: [("Sec-WebSocket-Protocol", "v1.hub")]))
        #expect(unsupported.subprotocol == nil)
        #expect(try Self.accepted(Self.request(), configuration).subprotocol == nil)
    }

    @Test func chosenSubprotocolIsInTheResponse() throws {
        let configuration = ServerHandshakeConfiguration(subprotocols: ["v1.hub"])
        let upgrade = try Self.accepted(Self.request(adding: [("Sec-WebSocket-Protocol", "v1.hub")]), configuration)
        #expect(Self.header("Sec-WebSocket-Protocol", in: upgrade.responseHeaders(extensions: nil)) == ["v1.hub"])
    }

    // MARK: Extensions

    @Test func extensionOffersArePassedOnRawAndInOrder() throws {
        let request = Self.request(adding: [
            ("Sec-WebSocket-Extensions", "permessage-deflate; client_max_window_bits"),
            ("sec-websocket-extensions", "x-webkit-deflate-frame, foo; bar=\"a,b\""),
        ])
        let upgrade = try Self.accepted(request)
        #expect(upgrade.extensionOffers == ["permessage-deflate; client_max_window_bits", "x-webkit-deflate-frame, foo; bar=\"a,b\""])
    }

    @Test func responseCarriesTheChosenExtensionsOnlyWhenGiven() throws {
        let upgrade = try Self.accepted(Self.request(adding: [("Sec-WebSocket-Extensions", "permessage-deflate")]))
        let with = upgrade.responseHeaders(extensions: "permessage-deflate; server_no_context_takeover")
        #expect(Self.header("Sec-WebSocket-Extensions", in: with) == ["permessage-deflate; server_no_context_takeover"])
        #expect(Self.header("Sec-WebSocket-Extensions", in: upgrade.responseHeaders(extensions: nil)).isEmpty)
        #expect(Self.header("Sec-WebSocket-Extensions", in: upgrade.responseHeaders(extensions: "")).isEmpty)
    }

    // MARK: Request helpers

    @Test func valuesAreCaseInsensitiveAndOrdered() {
        let request = HandshakeRequest(method: "GET", target: "/", versionMajor: 1, versionMinor: 1, headers: [
            ("X-A", "1"), ("Other", "x"), ("x-a", "2"), ("X-a", "3"),
        ])
        #expect(request.values(of: "x-A") == ["1", "2", "3"])
        #expect(request.values(of: "missing").isEmpty)
    }

    @Test(arguments: [
        ("/echo?token=abc", "/echo"),
        ("/echo", "/echo"),
        ("/", "/"),
        ("/a/b?x=1#frag", "/a/b"),
        ("/a%20b?x", "/a%20b"),
        ("ws://example.com:8080/chat?x=1", "/chat"),
        ("http://example.com", "/"),
    ])
    func pathDropsTheQuery(target: String, path: String) {
        #expect(HandshakeRequest(method: "GET", target: target, versionMajor: 1, versionMinor: 1, headers: []).path == path)
    }

    @Test func queryItemsArePercentDecoded() {
        let request = HandshakeRequest(
            method: "GET",
            target: "/echo?token=abc%2Fdef%3D%3D&name=J%C3%BCrgen&flag&empty=&a+b=c+d&bad=%zz&dup=1&dup=2#tail",
            versionMajor: 1, versionMinor: 1, headers: []
        )
        #expect(request.query == "token=abc%2Fdef%3D%3D&name=J%C3%BCrgen&flag&empty=&a+b=c+d&bad=%zz&dup=1&dup=2")
        #expect(request.queryItem("token") == "abc/def==")
        #expect(request.queryItem("name") == "Jürgen")
        #expect(request.queryItem("flag") == "")
        #expect(request.queryItem("empty") == "")
        #expect(request.queryItem("a+b") == "c+d")
        #expect(request.queryItem("bad") == nil)
        #expect(request.queryItem("dup") == "1")
        #expect(request.queryItem("missing") == nil)
        #expect(request.queryItem("Token") == nil)

        let noQuery = HandshakeRequest(method: "GET", target: "/echo", versionMajor: 1, versionMinor: 1, headers: [])
        #expect(noQuery.query == nil)
        #expect(noQuery.queryItem("token") == nil)
        let invalidUTF8 = HandshakeRequest(method: "GET", target: "/?t=%FF&u=%41", versionMajor: 1, versionMinor: 1, headers: [])
        #expect(invalidUTF8.queryItem("t") == nil)
        #expect(invalidUTF8.queryItem("u") == "A")
        let truncated = HandshakeRequest(method: "GET", target: "/?t=%4", versionMajor: 1, versionMinor: 1, headers: [])
        #expect(truncated.queryItem("t") == nil)
    }

    @Test func headerTokenHelpers() {
        #expect(HTTPHeaderTokens.tokens(in: [" a ,b,, ", "\tc"]) == ["a", "b", "c"])
        #expect(HTTPHeaderTokens.tokens(in: [",", ""]).isEmpty)
        #expect(HTTPHeaderTokens.contains(["keep-alive, Upgrade"], token: "upgrade"))
        #expect(!HTTPHeaderTokens.contains(["keep-alive"], token: "upgrade"))
        #expect(HTTPHeaderTokens.equalsIgnoringASCIICase("WebSocket", "websocket"))
        #expect(!HTTPHeaderTokens.equalsIgnoringASCIICase("websocket", "websockets"))
        #expect(!HTTPHeaderTokens.equalsIgnoringASCIICase("straße", "STRASSE"))
        #expect(HTTPHeaderTokens.asciiLowercased("HTTPS://Ä.Example") == "https://Ä.example")
        #expect(HTTPHeaderTokens.trimmingWhitespace(" \t ") == "")
    }
}
