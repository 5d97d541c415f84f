/// A compact JWS split into its parts, decoded but not yet verified.
struct JWTParts {
    /// The protected header's members the hub reads.
    struct Header: Decodable {
        var alg: String
        var kid: String?
        var crit: [String]?
    }

    var header: Header
    var payload: [UInt8]
    var signature: [UInt8]
    /// `header.payload` as sent: what the signature signs.
    var signingInput: [UInt8]

    /// Splits `token`: three parts of canonical base64url, a JSON header with `alg`, at most
    /// `maxBytes` in all.
    init(_ token: String, maxBytes: Int) throws(AuthError) {
        guard token.utf8.count <= maxBytes else { throw .malformed }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerBytes = Base64URL.decode(parts[0]),
              let payload = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]),
              let header = try? JSONDecoding.decode(Header.self, from: headerBytes)
        else { throw .malformed }
        self.header = header
        self.payload = payload
        self.signature = signature
        self.signingInput = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)
    }

    /// The `alg` of `token`'s header, or nil when the token is not three parts with a JSON header.
    static func algorithm(of token: String) -> String? {
        guard let end = token.utf8.firstIndex(of: UInt8(ascii: ".")),
              let bytes = Base64URL.decode(token[..<end]),
              let header = try? JSONDecoding.decode(Header.self, from: bytes) else { return nil }
        return header.alg
    }
}
