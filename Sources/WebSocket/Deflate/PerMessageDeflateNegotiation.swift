/// Negotiation of permessage-deflate (RFC 7692 §5, §7.1) over `Sec-WebSocket-Extensions` values.
///
/// Extension and parameter names are compared ASCII case-insensitively. Window bits values must be
/// decimal integers `8...15` without leading zeros, either as a token or as a quoted-string.
///
/// `server_max_window_bits=8`: zlib cannot compress raw DEFLATE with a 256-byte window, yet the value is
/// legal and a server must answer with at most the offered value. This implementation accepts it: the
/// parameters say 8, and a ``MessageDeflater`` created with 8 window bits emits literals only (zlib's
/// Huffman-only strategy), which never refer back at all and so are valid for any window.
public enum PerMessageDeflateNegotiation {
    /// The registered extension token, `permessage-deflate`.
    public static let extensionName = "permessage-deflate"

    /// Server side: picks the first acceptable permessage-deflate offer.
    ///
    /// - Parameters:
    ///   - offers: every `Sec-WebSocket-Extensions` header value of the request, in order. Each may hold
    ///     several comma-separated extensions with `;`-separated parameters. A header value that does
    ///     not follow RFC 6455 §9.1 is skipped as a whole (its elements cannot be told apart reliably).
    ///   - configuration: what this server is willing to do.
    /// - Returns: the agreed parameters (send ``PerMessageDeflateParameters/headerValue`` back), or nil
    ///   when compression is disabled or no offer is acceptable; the connection then proceeds
    ///   uncompressed. An offer with an unknown, duplicate or invalid parameter is declined
    ///   (RFC 7692 §5.1) and the next one considered, as is an offer without `client_max_window_bits`
    ///   when ``PerMessageDeflateConfiguration/maxClientWindowBits`` is below 15 (the client could not
    ///   be held to it).
    public static func negotiate(
        offers: [String],
        configuration: PerMessageDeflateConfiguration
    ) -> PerMessageDeflateParameters? {
        guard configuration.isEnabled else { return nil }
        for headerValue in offers {
            guard let elements = try? ExtensionHeaderParser.parse(headerValue) else { continue }
            for element in elements where Self.isPerMessageDeflate(element.name) {
                if let parameters = Self.accept(element.parameters, configuration: configuration) {
                    return parameters
                }
            }
        }
        return nil
    }

    /// Client side: the `Sec-WebSocket-Extensions` value to send, for example
    /// `permessage-deflate; client_no_context_takeover; server_no_context_takeover; client_max_window_bits`.
    ///
    /// Always returns the offer; the caller sends it only when
    /// ``PerMessageDeflateConfiguration/isEnabled`` is true.
    public static func clientOffer(configuration: PerMessageDeflateConfiguration) -> String {
        var offer = Self.extensionName
        if configuration.clientNoContextTakeover {
            offer += "; client_no_context_takeover"
        }
        if configuration.serverNoContextTakeover {
            offer += "; server_no_context_takeover"
        }
        let serverBits = configuration.effectiveMaxServerWindowBits
        if serverBits < 15 {
            offer += "; server_max_window_bits=\(serverBits)"
        }
        let clientBits = configuration.effectiveMaxClientWindowBits
        offer += clientBits < 15 ? "; client_max_window_bits=\(clientBits)" : "; client_max_window_bits"
        return offer
    }

    /// Client side: checks the server's `Sec-WebSocket-Extensions` response against the offer that
    /// ``clientOffer(configuration:)`` produced for the same configuration.
    ///
    /// - Parameters:
    ///   - headerValues: every `Sec-WebSocket-Extensions` header value of the response (none when absent).
    ///   - configuration: the configuration the offer was made with (nothing was offered when disabled).
    /// - Returns: the agreed parameters, or nil when the server did not accept the extension.
    /// - Throws: ``PerMessageDeflateError/invalidNegotiation(_:)`` when the response is malformed, names
    ///   an extension that was not offered or names it twice, has an unknown, duplicate or out-of-range
    ///   parameter, a window larger than offered, `client_max_window_bits` without a value, or omits
    ///   `server_no_context_takeover` / `server_max_window_bits` that the offer asked for. The client
    ///   must then fail the WebSocket connection (RFC 6455 §9.1).
    public static func acceptResponse(
        headerValues: [String],
        configuration: PerMessageDeflateConfiguration
    ) throws(PerMessageDeflateError) -> PerMessageDeflateParameters? {
        let elements: [ExtensionHeaderParser.Element]
        do {
            elements = try ExtensionHeaderParser.parse(headerValues)
        } catch {
            throw .invalidNegotiation("malformed Sec-WebSocket-Extensions: \(error.reason)")
        }
        guard let element = elements.first else { return nil }
        for other in elements where !configuration.isEnabled || !Self.isPerMessageDeflate(other.name) {
            throw .invalidNegotiation("the server accepted extension '\(other.name)' that was not offered")
        }
        guard elements.count == 1 else {
            throw .invalidNegotiation("the server accepted permessage-deflate more than once")
        }
        let response: Offer
        do {
            response = try Offer(element.parameters)
        } catch {
            throw .invalidNegotiation(error.reason)
        }

        if configuration.serverNoContextTakeover && !response.serverNoContextTakeover {
            throw .invalidNegotiation("the response lacks the offered server_no_context_takeover")
        }
        let offeredServerBits = configuration.effectiveMaxServerWindowBits
        let serverBits: Int
        if let bits = response.serverMaxWindowBits {
            guard bits <= offeredServerBits else {
                throw .invalidNegotiation("server_max_window_bits=\(bits) exceeds the offered \(offeredServerBits)")
            }
            serverBits = bits
        } else {
            guard offeredServerBits == 15 else {
                throw .invalidNegotiation("the response lacks the offered server_max_window_bits")
            }
            serverBits = 15
        }
        let offeredClientBits = configuration.effectiveMaxClientWindowBits
        var clientBits = offeredClientBits
        switch response.clientMaxWindowBits {
        case .absent:
            break
        case .withoutValue:
            throw .invalidNegotiation("client_max_window_bits in a response must have a value")
        case .value(let bits):
            guard bits <= offeredClientBits else {
                throw .invalidNegotiation("client_max_window_bits=\(bits) exceeds the offered \(offeredClientBits)")
            }
            clientBits = bits
        }
        return PerMessageDeflateParameters(
            serverNoContextTakeover: response.serverNoContextTakeover,
            clientNoContextTakeover: response.clientNoContextTakeover || configuration.clientNoContextTakeover,
            serverMaxWindowBits: serverBits,
            clientMaxWindowBits: clientBits,
            respondsWithServerMaxWindowBits: response.serverMaxWindowBits != nil,
            respondsWithClientMaxWindowBits: response.clientMaxWindowBits != .absent
        )
    }

    /// Server side: the parameters answering one offer, or nil to decline it.
    private static func accept(
        _ parameters: [ExtensionHeaderParser.Parameter],
        configuration: PerMessageDeflateConfiguration
    ) -> PerMessageDeflateParameters? {
        guard let offer = try? Offer(parameters) else { return nil }
        let serverBits = min(offer.serverMaxWindowBits ?? 15, configuration.effectiveMaxServerWindowBits)
        let clientBits: Int
        switch offer.clientMaxWindowBits {
        case .absent:
            // The client cannot be told to use a smaller window, so it may use 15.
            guard configuration.effectiveMaxClientWindowBits == 15 else { return nil }
            clientBits = 15
        case .withoutValue:
            clientBits = configuration.effectiveMaxClientWindowBits
        case .value(let bits):
            clientBits = min(bits, configuration.effectiveMaxClientWindowBits)
        }
        return PerMessageDeflateParameters(
            serverNoContextTakeover: offer.serverNoContextTakeover || configuration.serverNoContextTakeover,
            // An offered client_no_context_takeover is the client's promise (RFC 7692 §7.1.1.2): confirm it.
            clientNoContextTakeover: offer.clientNoContextTakeover || configuration.clientNoContextTakeover,
            serverMaxWindowBits: serverBits,
            clientMaxWindowBits: clientBits,
            respondsWithServerMaxWindowBits: offer.serverMaxWindowBits != nil || serverBits < 15,
            respondsWithClientMaxWindowBits: offer.clientMaxWindowBits != .absent
        )
    }

    private static func isPerMessageDeflate(_ name: String) -> Bool {
        Self.asciiLowercased(name) == Self.extensionName
    }

    private static func asciiLowercased(_ string: String) -> String {
        String(decoding: string.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Parses a window bits value: a decimal integer `8...15` without leading zeros.
    static func windowBits(_ value: String) -> Int? {
        let digits = Array(value.utf8)
        guard (1...2).contains(digits.count), digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), digits[0] != 0x30
        else { return nil }
        let number = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        return (8...15).contains(number) ? number : nil
    }

    /// The permessage-deflate parameters of one offer or response, checked for RFC 7692 §7.1 syntax.
    private struct Offer {
        enum WindowBits: Equatable {
            case absent
            case withoutValue
            case value(Int)
        }

        struct Invalid: Error {
            var reason: String
        }

        var serverNoContextTakeover = false
        var clientNoContextTakeover = false
        var serverMaxWindowBits: Int?
        var clientMaxWindowBits = WindowBits.absent

        init(_ parameters: [ExtensionHeaderParser.Parameter]) throws(Invalid) {
            var seen: Set<String> = []
            for parameter in parameters {
                let name = PerMessageDeflateNegotiation.asciiLowercased(parameter.name)
                guard seen.insert(name).inserted else {
                    throw Invalid(reason: "duplicate parameter \(name)")
                }
                switch name {
                case "server_no_context_takeover":
                    guard parameter.value == nil else { throw Invalid(reason: "\(name) takes no value") }
                    self.serverNoContextTakeover = true
                case "client_no_context_takeover":
                    guard parameter.value == nil else { throw Invalid(reason: "\(name) takes no value") }
                    self.clientNoContextTakeover = true
                case "server_max_window_bits":
                    guard let value = parameter.value, let bits = PerMessageDeflateNegotiation.windowBits(value)
                    else { throw Invalid(reason: "\(name) needs a value 8...15") }
                    self.serverMaxWindowBits = bits
                case "client_max_window_bits":
                    if let value = parameter.value {
                        guard let bits = PerMessageDeflateNegotiation.windowBits(value) else {
                            throw Invalid(reason: "\(name) must be 8...15")
                        }
                        self.clientMaxWindowBits = .value(bits)
                    } else {
                        self.clientMaxWindowBits = .withoutValue
                    }
                default:
                    throw Invalid(reason: "unknown parameter \(parameter.name)")
                }
            }
        }
    }
}
