import Testing
@testable import WebSocket

@Suite("Client opening handshake (RFC 6455 §4.1)")
struct ClientHandshakeTests {
    private static let sampleKey = "dGhlIHNhbXBsZSBub25jZQ=="
    private static let sampleAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

    private static func handshake(
        subprotocols: [String] = [],
        extensionOffer: String? = nil
    ) -> ClientHandshake {
        ClientHandshake(
            host: "server.example.com",
            target: "/chat",
            subprotocols: subprotocols,
            extensionOffer: extensionOffer,
            key: sampleKey
        )
    }

    /// A valid 101 response for the sample key, minus headers named in `removing`, plus `adding`.
    private static func response(
        removing: [String] = [],
        adding: [(name: String, value: String)] = []
    ) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [
            ("Upgrade", "websocket"),
            ("Connection", "Upgrade"),
            ("Sec-WebSocket-Accept", sampleAccept),
        ]
        headers.removeAll { header in removing.contains { $0 == header.name } }
        headers.append(contentsOf: adding)
        return headers
    }

    private static func error(
        _ handshake: ClientHandshake,
        status: Int = 101,
        _ headers: [(name: String, value: String)]
    ) -> ClientHandshakeError? {
        do {
            _ = try handshake.validate(status: status, headers: headers)
            return nil
        } catch {
            return error
        }
    }

    // MARK: Request

    @Test func requestHeadersFollowRFC6455() {
        let handshake = ClientHandshake(
            host: "server.example.com",
            target: "/chat",
            origin: "http://example.com",
            subprotocols: ["chat", "superchat"],
            extensionOffer: "permessage-deflate; client_max_window_bits",
            extraHeaders: [("Authorization", "Bearer t")],
            key: Self.sampleKey
        )
        #expect(handshake.key == Self.sampleKey)
        #expect(handshake.expectedAccept == Self.sampleAccept)
        let headers = handshake.requestHeaders
        #expect(headers.map(\.name) == [
            "Host", "Upgrade", "Connection", "Sec-WebSocket-Key", "Sec-WebSocket-Version",
            "Origin", "Sec-WebSocket-Protocol", "Sec-WebSocket-Extensions", "Authorization",
        ])
        #expect(headers.map(\.value) == [
            "server.example.com", "websocket", "Upgrade", Self.sampleKey, "13",
            "http://example.com", "chat, superchat", "permessage-deflate; client_max_window_bits", "Bearer t",
        ])
    }

    @Test func minimalRequestOmitsOptionalHeaders() {
        let names = Self.handshake(extensionOffer: "  ").requestHeaders.map(\.name)
        #expect(names == ["Host", "Upgrade", "Connection", "Sec-WebSocket-Key", "Sec-WebSocket-Version"])
    }

    @Test func generatedKeyIsSixteenRandomBytes() {
        let first = ClientHandshake(host: "h", target: "/")
        let second = ClientHandshake(host: "h", target: "/")
        #expect(WebSocketAccept.isValidKey(first.key))
        #expect(first.key != second.key)
        #expect(first.expectedAccept == WebSocketAccept.value(forKey: first.key))
    }

    @Test func clientRequestPassesTheServer() throws {
        let client = ClientHandshake(host: "h:8080", target: "/chat?token=a%20b", subprotocols: ["v1.hub"], extensionOffer: "permessage-deflate")
        let request = HandshakeRequest(method: "GET", target: client.target, versionMajor: 1, versionMinor: 1, headers: client.requestHeaders)
        let upgrade = try ServerHandshake.evaluate(request, configuration: ServerHandshakeConfiguration(subprotocols: ["v1.hub"])).get()
        #expect(upgrade.request.queryItem("token") == "a b")
        let result = try client.validate(status: 101, headers: upgrade.responseHeaders(extensions: "permessage-deflate"))
        #expect(result.subprotocol == "v1.hub")
        #expect(result.extensionHeaderValues == ["permessage-deflate"])
    }

    // MARK: Response validation

    @Test func acceptsAValidResponse() throws {
        let result = try Self.handshake().validate(status: 101, headers: Self.response())
        #expect(result == ClientHandshakeResult(subprotocol: nil, extensionHeaderValues: []))
    }

    @Test func tokensAndNamesAreCaseInsensitive() throws {
        let headers: [(name: String, value: String)] = [
            ("UPGRADE", "WebSocket"),
            ("connection", "keep-alive, upgrade"),
            ("sec-websocket-accept", " \(Self.sampleAccept) "),
        ]
        _ = try Self.handshake().validate(status: 101, headers: headers)
    }

    @Test(arguments: [200, 301, 400, 401, 403, 426, 500])
    func statusOtherThan101Fails(status: Int) {
        #expect(Self.error(Self.handshake(), status: status, Self.response()) == .unexpectedStatus(status))
    }

    @Test func upgradeMustBeWebsocket() {
        #expect(Self.error(Self.handshake(), Self.response(removing: ["Upgrade"])) == .missingUpgrade)
        #expect(Self.error(Self.handshake(), Self.response(removing: ["Upgrade"], adding: [("Upgrade", "h2c")])) == .invalidUpgrade("h2c"))
        #expect(Self.error(Self.handshake(), Self.response(removing: ["Upgrade"], adding: [("Upgrade", "websocket, h2c")]))
            == .invalidUpgrade("websocket, h2c"))
    }

    @Test func connectionMustListUpgrade() {
        #expect(Self.error(Self.handshake(), Self.response(removing: ["Connection"])) == .missingConnectionUpgrade)
        let keepAlive = Self.response(removing: ["Connection"], adding: [("Connection", "keep-alive")])
        #expect(Self.error(Self.handshake(), keepAlive) == .missingConnectionUpgrade)
    }

    @Test func acceptMustMatch() {
        #expect(Self.error(Self.handshake(), Self.response(removing: ["Sec-WebSocket-Accept"])) == .missingAccept)
        let wrong = Self.response(removing: ["Sec-WebSocket-Accept"], adding: [("Sec-WebSocket-Accept", "Bz3qJYTGdOe8gUSpLosEdiLKDrk=")])
        #expect(Self.error(Self.handshake(), wrong) == .badAccept)
        let keyEchoed = Self.response(removing: ["Sec-WebSocket-Accept"], adding: [("Sec-WebSocket-Accept", Self.sampleKey)])
        #expect(Self.error(Self.handshake(), keyEchoed) == .badAccept)
        let repeated = Self.response(adding: [("Sec-WebSocket-Accept", Self.sampleAccept)])
        #expect(Self.error(Self.handshake(), repeated) == .badAccept)
        let caseChanged = Self.response(removing: ["Sec-WebSocket-Accept"], adding: [("Sec-WebSocket-Accept", "S3PPLMBITXAQ9KYGZZHZRBK+XOO=")])
        #expect(Self.error(Self.handshake(), caseChanged) == .badAccept)
    }

    @Test func subprotocolMustBeOneWeOffered() throws {
        let offering = Self.handshake(subprotocols: ["v1.hub", "v2.hub"])
        let chosen = try offering.validate(status: 101, headers: Self.response(adding: [("Sec-WebSocket-Protocol", "v2.hub")]))
        #expect(chosen.subprotocol == "v2.hub")
        #expect(try offering.validate(status: 101, headers: Self.response()).subprotocol == nil)

        let other = Self.response(adding: [("Sec-WebSocket-Protocol", "mqtt")])
        #expect(Self.error(offering, other) == .unexpectedSubprotocol("mqtt"))
        let differentCase = Self.response(adding: [("Sec-WebSocket-Protocol", "V1.HUB")])
        #expect(Self.error(offering, differentCase) == .unexpectedSubprotocol("V1.HUB"))
        let two = Self.response(adding: [("Sec-WebSocket-Protocol", "v1.hub, v2.hub")])
        #expect(Self.error(offering, two) == .unexpectedSubprotocol("v1.hub, v2.hub"))
        let repeated = Self.response(adding: [("Sec-WebSocket-Protocol", "v1.hub"), ("Sec-WebSocket-Protocol", "v1.hub")])
        #expect(Self.error(offering, repeated) == .unexpectedSubprotocol("v1.hub, v1.hub"))
        let empty = Self.response(adding: [("Sec-WebSocket-Protocol", "")])
        #expect(Self.error(offering, empty) == .unexpectedSubprotocol(""))
        let unoffered = Self.response(adding: [("Sec-WebSocket-Protocol", "v1.hub")])
        #expect(Self.error(Self.handshake(), unoffered) == .unexpectedSubprotocol("v1.hub"))
    }

    @Test func extensionsOnlyIfOffered() throws {
        let extensions = Self.response(adding: [("Sec-WebSocket-Extensions", "permessage-deflate")])
        #expect(Self.error(Self.handshake(), extensions) == .unexpectedExtensions)
        let offering = Self.handshake(extensionOffer: "permessage-deflate; client_max_window_bits")
        let result = try offering.validate(status: 101, headers: extensions)
        #expect(result.extensionHeaderValues == ["permessage-deflate"])
        #expect(try offering.validate(status: 101, headers: Self.response()).extensionHeaderValues.isEmpty)
    }

    @Test func errorsDescribeThemselves() {
        let errors: [ClientHandshakeError] = [
            .unexpectedStatus(404), .missingUpgrade, .invalidUpgrade("x"), .missingConnectionUpgrade,
            .missingAccept, .badAccept, .unexpectedSubprotocol("x"), .unexpectedExtensions,
        ]
        #expect(Set(errors.map(\.description)).count == errors.count)
        #expect(ClientHandshakeError.unexpectedStatus(404).description.contains("404"))
    }
}
