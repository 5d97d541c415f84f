import Foundation

/// Mints and verifies HS256 JWTs signed with the hub's secret.
public struct TokenAuthority: Sendable {
    private let key: [UInt8]

    /// An authority for `secret` (at least 16 bytes).
    public init(secret: [UInt8]) {
        self.key = secret
    }

    private static let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))

    /// A signed token for `claims`.
    public func mint(_ claims: TokenClaims) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let payload = Base64URL.encode((try? encoder.encode(claims)) ?? Data())
        let signingInput = Self.header + "." + payload
        let signature = HMACSHA256.mac(key: key, message: Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Checks the signature, algorithm and expiry of `token` at `now` (seconds since the epoch).
    public func verify(_ token: String, now: Int) throws(AuthError) -> TokenClaims {
        guard token.utf8.count <= 4096 else { throw .malformed }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerBytes = Base64URL.decode(parts[0]),
              let payloadBytes = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2])
        else { throw .malformed }
        struct Header: Decodable { var alg: String }
        guard let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)) else { throw .malformed }
        guard header.alg == "HS256" else { throw .unsupportedAlgorithm }
        let expected = HMACSHA256.mac(key: key, message: Array((parts[0] + "." + parts[1]).utf8))
        guard HMACSHA256.constantTimeEquals(expected, signature) else { throw .badSignature }
        guard let claims = try? JSONDecoder().decode(TokenClaims.self, from: Data(payloadBytes)) else { throw .invalidClaims }
        guard !claims.sub.isEmpty, claims.sub.utf8.count <= 128, claims.name.utf8.count <= 128 else { throw .invalidClaims }
        guard claims.exp > now else { throw .expired }
        return claims
    }
}
