import Foundation

/// Mints and verifies HS256 JWTs signed with the hub's secret.
public struct TokenAuthority: Sendable {
    private let key: HMACSHA256.Key
    /// The time rules tokens are checked against.
    public let policy: TokenPolicy

    /// An authority for `secret` (at least 16 bytes) checking tokens against `policy`.
    public init(secret: [UInt8], policy: TokenPolicy = TokenPolicy()) {
        self.key = HMACSHA256.Key(secret)
        self.policy = policy
    }

    /// The longest token of the hub's own accepted, bytes (an identity provider's may be longer:
    /// ``IdentityProviderVerifier/maxTokenBytes``).
    public static let maxTokenBytes = 4096

    private static let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))

    /// A signed token for `claims`.
    public func mint(_ claims: TokenClaims) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let payload = Base64URL.encode((try? encoder.encode(claims)) ?? Data())
        let signingInput = Self.header + "." + payload
        let signature = key.mac(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Checks `token` at `now` (seconds since the epoch), in this order: shape (three parts of
    /// canonical base64url), algorithm, signature, claims (`sub` 1–128 bytes, `name` ≤ 128
    /// bytes, neither with a control character), `exp` > now, `iat` ≤ now + the allowed skew,
    /// and `exp - iat` ≤ the longest lifetime (``TokenPolicy``).
    public func verify(_ token: String, now: Int) throws(AuthError) -> TokenClaims {
        guard token.utf8.count <= Self.maxTokenBytes else { throw .malformed }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerBytes = Base64URL.decode(parts[0]),
              let payloadBytes = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2])
        else { throw .malformed }
        struct Header: Decodable { var alg: String }
        guard let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)) else { throw .malformed }
        guard header.alg == "HS256" else { throw .unsupportedAlgorithm }
        let expected = key.mac(Array((parts[0] + "." + parts[1]).utf8))
        guard HMACSHA256.constantTimeEquals(expected, signature) else { throw .badSignature }
        guard let claims = try? JSONDecoder().decode(TokenClaims.self, from: Data(payloadBytes)) else { throw .invalidClaims }
        guard !claims.sub.isEmpty, claims.sub.utf8.count <= TokenClaims.maxSubjectBytes,
              claims.name.utf8.count <= TokenClaims.maxNameBytes else { throw .invalidClaims }
        guard !claims.hasControlCharacters else { throw .controlCharacters }
        guard claims.exp > now else { throw .expired }
        guard claims.iat <= now.addingReportingOverflow(policy.maxClockSkewSeconds).partialValue else { throw .notYetValid }
        let lifetime = claims.exp.subtractingReportingOverflow(claims.iat)
        guard !lifetime.overflow, lifetime.partialValue <= policy.maxLifetimeSeconds else { throw .lifetimeTooLong }
        return claims
    }
}
