import Testing

@testable import WebSocket

@Suite("permessage-deflate negotiation")
struct PerMessageDeflateNegotiationTests {
    typealias Configuration = PerMessageDeflateConfiguration
    typealias Parameters = PerMessageDeflateParameters

    /// A server that adds no parameter of its own: answers exactly what was offered.
    static let plain = Configuration(serverNoContextTakeover: false, clientNoContextTakeover: false)

    static func negotiate(_ offers: String..., configuration: Configuration = plain) -> Parameters? {
        PerMessageDeflateNegotiation.negotiate(offers: offers, configuration: configuration)
    }

    // MARK: Server: accepted offers and the response header

    @Test("Defaults: 15-bit windows, level 1, memory level 4, 64-byte threshold, both no-context-takeover")
    func defaults() {
        let configuration = Configuration.default
        #expect(configuration.isEnabled)
        #expect(configuration.serverNoContextTakeover && configuration.clientNoContextTakeover)
        #expect(configuration.maxServerWindowBits == 15 && configuration.maxClientWindowBits == 15)
        #expect(configuration.compressionLevel == 1 && configuration.memoryLevel == 4)
        #expect(configuration.minimumCompressedSize == 64)
    }

    @Test("A plain offer with the default configuration asks for no context takeover both ways")
    func plainOfferDefaults() throws {
        let parameters = try #require(Self.negotiate("permessage-deflate", configuration: .default))
        #expect(parameters.serverNoContextTakeover && parameters.clientNoContextTakeover)
        #expect(parameters.serverMaxWindowBits == 15 && parameters.clientMaxWindowBits == 15)
        #expect(parameters.headerValue == "permessage-deflate; server_no_context_takeover; client_no_context_takeover")
    }

    @Test(
        "Offers and the exact response header",
        arguments: [
            ("permessage-deflate", "permessage-deflate"),
            ("permessage-deflate; server_no_context_takeover", "permessage-deflate; server_no_context_takeover"),
            ("permessage-deflate; client_no_context_takeover", "permessage-deflate; client_no_context_takeover"),
            ("permessage-deflate; client_max_window_bits", "permessage-deflate; client_max_window_bits=15"),
            ("permessage-deflate; client_max_window_bits=10", "permessage-deflate; client_max_window_bits=10"),
            ("permessage-deflate; server_max_window_bits=15", "permessage-deflate; server_max_window_bits=15"),
            ("permessage-deflate; server_max_window_bits=12", "permessage-deflate; server_max_window_bits=12"),
            (
                "permessage-deflate; client_no_context_takeover; server_no_context_takeover; server_max_window_bits=9; client_max_window_bits=8",
                "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=9; client_max_window_bits=8"
            ),
            // Quoted-string values (RFC 7692 §7.1, RFC 6455 §9.1), a quoted-pair, whitespace and case.
            ("permessage-deflate; client_max_window_bits=\"10\"", "permessage-deflate; client_max_window_bits=10"),
            ("permessage-deflate; server_max_window_bits=\"1\\1\"", "permessage-deflate; server_max_window_bits=11"),
            ("  permessage-deflate ;\tclient_max_window_bits = 12 ,  ", "permessage-deflate; client_max_window_bits=12"),
            ("PerMessage-Deflate; Server_No_Context_Takeover", "permessage-deflate; server_no_context_takeover"),
        ]
    )
    func acceptedOffer(offer: String, response: String) throws {
        let parameters = try #require(Self.negotiate(offer))
        #expect(parameters.headerValue == response)
    }

    @Test("server_max_window_bits=8...15 is accepted with the same value", arguments: 8...15)
    func serverWindowBits(bits: Int) throws {
        let parameters = try #require(Self.negotiate("permessage-deflate; server_max_window_bits=\(bits)"))
        #expect(parameters.serverMaxWindowBits == bits)
        #expect(parameters.clientMaxWindowBits == 15)
        #expect(parameters.headerValue == "permessage-deflate; server_max_window_bits=\(bits)")
    }

    @Test("client_max_window_bits=8...15 is accepted with the same value", arguments: 8...15)
    func clientWindowBits(bits: Int) throws {
        let parameters = try #require(Self.negotiate("permessage-deflate; client_max_window_bits=\(bits)"))
        #expect(parameters.clientMaxWindowBits == bits)
        #expect(parameters.serverMaxWindowBits == 15)
        #expect(parameters.headerValue == "permessage-deflate; client_max_window_bits=\(bits)")
    }

    @Test("server_max_window_bits=8 is served by a deflater a 256-byte-window peer can read")
    func serverWindowBitsEight() throws {
        let parameters = try #require(Self.negotiate("permessage-deflate; server_max_window_bits=8", configuration: .default))
        #expect(parameters.serverMaxWindowBits == 8)
        let deflater = try MessageDeflater(
            windowBits: parameters.serverMaxWindowBits,
            noContextTakeover: parameters.serverNoContextTakeover,
            level: 1,
            memoryLevel: 4
        )
        #expect(deflater.windowBits == 8)
    }

    @Test("The server's own window caps are applied and announced")
    func serverCaps() throws {
        let configuration = Configuration(
            serverNoContextTakeover: false,
            clientNoContextTakeover: false,
            maxServerWindowBits: 10,
            maxClientWindowBits: 11
        )
        let bare = try #require(Self.negotiate("permessage-deflate; client_max_window_bits", configuration: configuration))
        #expect(bare.serverMaxWindowBits == 10 && bare.clientMaxWindowBits == 11)
        #expect(bare.headerValue == "permessage-deflate; server_max_window_bits=10; client_max_window_bits=11")

        let smaller = try #require(
            Self.negotiate("permessage-deflate; server_max_window_bits=9; client_max_window_bits=9", configuration: configuration)
        )
        #expect(smaller.serverMaxWindowBits == 9 && smaller.clientMaxWindowBits == 9)

        let larger = try #require(
            Self.negotiate("permessage-deflate; server_max_window_bits=14; client_max_window_bits=15", configuration: configuration)
        )
        #expect(larger.headerValue == "permessage-deflate; server_max_window_bits=10; client_max_window_bits=11")
    }

    @Test("With a client window cap below 15, an offer that cannot be capped is declined")
    func clientCapNeedsTheParameter() throws {
        let configuration = Configuration(maxClientWindowBits: 12)
        #expect(Self.negotiate("permessage-deflate", configuration: configuration) == nil)
        let parameters = try #require(
            Self.negotiate("permessage-deflate, permessage-deflate; client_max_window_bits", configuration: configuration)
        )
        #expect(parameters.clientMaxWindowBits == 12)
    }

    @Test("Out-of-range configuration values are clamped to 9...15")
    func clamped() throws {
        let configuration = Configuration(maxServerWindowBits: 3, maxClientWindowBits: 40)
        let parameters = try #require(
            Self.negotiate("permessage-deflate; client_max_window_bits", configuration: configuration)
        )
        #expect(parameters.serverMaxWindowBits == 9 && parameters.clientMaxWindowBits == 15)
    }

    @Test("Disabled, empty or absent offers negotiate nothing")
    func nothing() {
        #expect(Self.negotiate("permessage-deflate", configuration: Configuration(isEnabled: false)) == nil)
        #expect(PerMessageDeflateNegotiation.negotiate(offers: [], configuration: .default) == nil)
        #expect(Self.negotiate("") == nil)
        #expect(Self.negotiate(" , ,") == nil)
        #expect(Self.negotiate("x-webkit-deflate-frame") == nil)
        #expect(Self.negotiate("permessage-deflate-x") == nil)
    }

    // MARK: Server: declined offers

    @Test(
        "Offers with invalid, duplicate or unknown parameters are declined",
        arguments: [
            "permessage-deflate; server_max_window_bits=7",
            "permessage-deflate; server_max_window_bits=16",
            "permessage-deflate; server_max_window_bits=abc",
            "permessage-deflate; server_max_window_bits=08",
            "permessage-deflate; server_max_window_bits=+9",
            "permessage-deflate; server_max_window_bits=\"\"",
            "permessage-deflate; server_max_window_bits=\"abc\"",
            "permessage-deflate; server_max_window_bits",
            "permessage-deflate; client_max_window_bits=7",
            "permessage-deflate; client_max_window_bits=16",
            "permessage-deflate; client_max_window_bits=abc",
            "permessage-deflate; client_max_window_bits=015",
            "permessage-deflate; client_max_window_bits=\"9.5\"",
            "permessage-deflate; server_no_context_takeover=1",
            "permessage-deflate; client_no_context_takeover=\"x\"",
            "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
            "permessage-deflate; client_no_context_takeover; client_no_context_takeover",
            "permessage-deflate; server_max_window_bits=10; server_max_window_bits=10",
            "permessage-deflate; client_max_window_bits; client_max_window_bits=10",
            "permessage-deflate; client_max_window_bits; CLIENT_MAX_WINDOW_BITS",
            "permessage-deflate; foo",
            "permessage-deflate; x-webkit=1",
            "permessage-deflate; mux",
        ]
    )
    func declined(offer: String) {
        #expect(Self.negotiate(offer) == nil)
        #expect(Self.negotiate(offer, configuration: .default) == nil)
    }

    @Test(
        "Malformed header values are skipped",
        arguments: [
            "permessage-deflate;",
            "permessage-deflate; =10",
            "permessage-deflate; client_max_window_bits=",
            "permessage-deflate; client_max_window_bits=\"10",
            "permessage-deflate client_max_window_bits",
            "; permessage-deflate",
            "permessage-deflate; server_max_window_bits=1 0",
        ]
    )
    func malformed(header: String) throws {
        #expect(Self.negotiate(header) == nil)
        // A later, well-formed header value is still considered.
        let parameters = try #require(Self.negotiate(header, "permessage-deflate; client_max_window_bits=9"))
        #expect(parameters.clientMaxWindowBits == 9)
    }

    @Test("The first acceptable offer wins, within one header and across headers")
    func firstAcceptable() throws {
        let inOneHeader = try #require(
            Self.negotiate(
                "permessage-deflate; server_max_window_bits=7, permessage-deflate; foo, permessage-deflate; server_max_window_bits=10, permessage-deflate"
            )
        )
        #expect(inOneHeader.serverMaxWindowBits == 10)

        let acrossHeaders = try #require(
            Self.negotiate(
                "x-webkit-deflate-frame",
                "permessage-deflate; client_max_window_bits=16, foo; bar=\"a,b\"",
                "permessage-deflate; client_max_window_bits=12",
                "permessage-deflate"
            )
        )
        #expect(acrossHeaders.clientMaxWindowBits == 12)

        // Autobahn 13.7-style: a demanding offer first, then fallbacks.
        let fallback = try #require(
            Self.negotiate(
                "permessage-deflate; client_no_context_takeover; client_max_window_bits=8, permessage-deflate; client_no_context_takeover, permessage-deflate"
            )
        )
        #expect(fallback.clientMaxWindowBits == 8 && fallback.clientNoContextTakeover)
    }

    @Test("Other extensions around the offer, including quoted commas, are skipped")
    func otherExtensions() throws {
        let parameters = try #require(
            Self.negotiate("foo; bar=\"a, b; c\", permessage-deflate; client_max_window_bits=\"11\", baz")
        )
        #expect(parameters.clientMaxWindowBits == 11)
    }

    // MARK: Parser

    @Test("The header parser splits extensions and parameters and unescapes quoted strings")
    func parser() throws {
        let elements = try ExtensionHeaderParser.parse("a; b; c=1, , d; e=\"x\\\"y\" ,f")
        #expect(
            elements == [
                .init(name: "a", parameters: [.init(name: "b", value: nil), .init(name: "c", value: "1")]),
                .init(name: "d", parameters: [.init(name: "e", value: "x\"y")]),
                .init(name: "f", parameters: []),
            ]
        )
        #expect(throws: ExtensionHeaderParser.SyntaxError.self) { try ExtensionHeaderParser.parse("a; b=\"\u{7F}\"") }
        #expect(throws: ExtensionHeaderParser.SyntaxError.self) { try ExtensionHeaderParser.parse("a b") }
        #expect(throws: ExtensionHeaderParser.SyntaxError.self) { try ExtensionHeaderParser.parse("a; b=c d") }
        #expect(throws: ExtensionHeaderParser.SyntaxError.self) { try ExtensionHeaderParser.parse("(a)") }
    }

    // MARK: Client

    @Test("The client offer follows the configuration")
    func clientOffer() {
        #expect(
            PerMessageDeflateNegotiation.clientOffer(configuration: .default)
                == "permessage-deflate; client_no_context_takeover; server_no_context_takeover; client_max_window_bits"
        )
        let small = Configuration(
            serverNoContextTakeover: false,
            clientNoContextTakeover: false,
            maxServerWindowBits: 10,
            maxClientWindowBits: 12
        )
        #expect(
            PerMessageDeflateNegotiation.clientOffer(configuration: small)
                == "permessage-deflate; server_max_window_bits=10; client_max_window_bits=12"
        )
    }

    static let configurations: [Configuration] = [
        .default,
        plain,
        Configuration(serverNoContextTakeover: false),
        Configuration(clientNoContextTakeover: false),
        Configuration(maxServerWindowBits: 9, maxClientWindowBits: 9),
        Configuration(serverNoContextTakeover: false, maxServerWindowBits: 12),
        Configuration(clientNoContextTakeover: false, maxClientWindowBits: 11),
        Configuration(maxServerWindowBits: 14, maxClientWindowBits: 10),
    ]

    @Test("clientOffer → negotiate → acceptResponse agree on the parameters", arguments: 0..<8, 0..<8)
    func roundTrip(clientIndex: Int, serverIndex: Int) throws {
        let client = Self.configurations[clientIndex]
        let server = Self.configurations[serverIndex]
        let offer = PerMessageDeflateNegotiation.clientOffer(configuration: client)
        let serverSide = try #require(PerMessageDeflateNegotiation.negotiate(offers: [offer], configuration: server))
        let clientSide = try #require(
            try PerMessageDeflateNegotiation.acceptResponse(headerValues: [serverSide.headerValue], configuration: client)
        )
        #expect(clientSide == serverSide)
        // Each side stays within its own and the other's caps.
        #expect(serverSide.serverMaxWindowBits <= min(client.maxServerWindowBits, server.maxServerWindowBits))
        #expect(serverSide.clientMaxWindowBits <= min(client.maxClientWindowBits, server.maxClientWindowBits))
        #expect(serverSide.serverNoContextTakeover == (client.serverNoContextTakeover || server.serverNoContextTakeover))
    }

    @Test("A response without the extension (or none at all) means no compression")
    func responseWithoutExtension() throws {
        #expect(try PerMessageDeflateNegotiation.acceptResponse(headerValues: [], configuration: .default) == nil)
        #expect(try PerMessageDeflateNegotiation.acceptResponse(headerValues: [""], configuration: .default) == nil)
        #expect(try PerMessageDeflateNegotiation.acceptResponse(headerValues: [], configuration: Configuration(isEnabled: false)) == nil)
    }

    @Test("A response may add what a server is allowed to add")
    func responseAdditions() throws {
        let parameters = try #require(
            try PerMessageDeflateNegotiation.acceptResponse(
                headerValues: ["permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=8; client_max_window_bits=8"],
                configuration: Self.plain
            )
        )
        #expect(parameters.serverNoContextTakeover && parameters.clientNoContextTakeover)
        #expect(parameters.serverMaxWindowBits == 8 && parameters.clientMaxWindowBits == 8)

        // Our own client_no_context_takeover offer binds us even if the response omits it.
        let promised = try #require(
            try PerMessageDeflateNegotiation.acceptResponse(
                headerValues: ["permessage-deflate; server_no_context_takeover"],
                configuration: .default
            )
        )
        #expect(promised.clientNoContextTakeover)
        // Our own client window cap holds when the response does not name one.
        let capped = try #require(
            try PerMessageDeflateNegotiation.acceptResponse(
                headerValues: ["permessage-deflate"],
                configuration: Configuration(serverNoContextTakeover: false, maxClientWindowBits: 10)
            )
        )
        #expect(capped.clientMaxWindowBits == 10)
    }

    @Test(
        "Responses the client must fail the connection for",
        arguments: [
            (["x-foo"], plain),
            (["permessage-deflate, x-foo"], plain),
            (["permessage-deflate, permessage-deflate"], plain),
            (["permessage-deflate", "permessage-deflate"], plain),
            (["permessage-deflate;"], plain),
            (["permessage-deflate; foo"], plain),
            (["permessage-deflate; server_no_context_takeover; server_no_context_takeover"], plain),
            (["permessage-deflate; server_no_context_takeover=1"], plain),
            (["permessage-deflate; server_max_window_bits=16"], plain),
            (["permessage-deflate; server_max_window_bits=7"], plain),
            (["permessage-deflate; server_max_window_bits"], plain),
            (["permessage-deflate; client_max_window_bits"], plain),
            (["permessage-deflate; client_max_window_bits=abc"], plain),
            (["permessage-deflate"], Configuration(isEnabled: false)),
            // server_no_context_takeover was offered but not confirmed.
            (["permessage-deflate"], Configuration(clientNoContextTakeover: false)),
            // Windows larger than offered, or an offered server window left out.
            (["permessage-deflate; server_max_window_bits=11"], Configuration(serverNoContextTakeover: false, maxServerWindowBits: 10)),
            (["permessage-deflate"], Configuration(serverNoContextTakeover: false, maxServerWindowBits: 10)),
            (["permessage-deflate; client_max_window_bits=13"], Configuration(serverNoContextTakeover: false, maxClientWindowBits: 12)),
        ] as [([String], Configuration)]
    )
    func rejectedResponse(headerValues: [String], configuration: Configuration) {
        #expect(throws: PerMessageDeflateError.self) {
            try PerMessageDeflateNegotiation.acceptResponse(headerValues: headerValues, configuration: configuration)
        }
    }
}
