/// Verifies RS256 and ES256 tokens of the app's identity provider against its keys
/// (``JWKSKeyRing``), then maps their claims to the hub's ``TokenClaims``.
///
/// Checks, in this order: shape (three canonical base64url parts, at most 8192 bytes, no `crit`
/// header), `alg` (RS256 or ES256), key by `kid` (`token_unknown_key`; the key must be for that
/// algorithm), signature, claims (`sub` 1–128 bytes; `exp` and `iat` NumericDates; no control
/// character in `sub` or the display name), `iss` and `aud` when configured, `exp` > now,
/// `iat` and `nbf` ≤ now + skew, and `exp - iat` ≤ the longest lifetime (``TokenPolicy``), as for
/// the hub's own tokens. The display name is `name`, else `preferred_username`, else `sub`, cut to
/// 128 bytes. The token's `role` is never read: only the hub's own tokens make an operator.
public struct IdentityProviderVerifier: TokenVerifier {
    /// The keys tokens are checked against.
    public let keys: JWKSKeyRing
    /// The `iss` required, if any.
    public let issuer: String?
    /// The audience `aud` must hold, if any.
    public let audience: String?
    /// The time rules.
    public let policy: TokenPolicy
    /// The longest token accepted (identity providers' tokens run longer than the hub's own).
    public static let maxTokenBytes = 8192

    /// A verifier of tokens signed with a key of `keys`.
    public init(keys: JWKSKeyRing, issuer: String? = nil, audience: String? = nil, policy: TokenPolicy = TokenPolicy()) {
        self.keys = keys
        self.issuer = issuer
        self.audience = audience
        self.policy = policy
    }

    /// Checks `token` at `now` (seconds since the epoch).
    public func verify(_ token: String, now: Int) throws(AuthError) -> TokenClaims {
        let parts = try JWTParts(token, maxBytes: Self.maxTokenBytes)
        guard parts.header.crit == nil else { throw .malformed }
        guard let algorithm = JSONWebKey.Algorithm(rawValue: parts.header.alg) else { throw .unsupportedAlgorithm }
        let candidates = try keys.candidates(kid: parts.header.kid, algorithm: algorithm)
        guard candidates.contains(where: { $0.isValidSignature(parts.signature, for: parts.signingInput) }) else {
            throw .badSignature
        }
        guard let claims = try? JSONDecoding.decode(IdentityProviderClaims.self, from: parts.payload) else {
            throw .invalidClaims
        }
        guard !claims.sub.isEmpty, claims.sub.utf8.count <= TokenClaims.maxSubjectBytes else { throw .invalidClaims }
        let name = claims.displayName
        guard !TokenClaims.hasControlCharacters(claims.sub), !TokenClaims.hasControlCharacters(name) else {
            throw .controlCharacters
        }
        if let issuer, claims.iss != issuer { throw .wrongIssuer }
        if let audience, !(claims.aud ?? []).contains(audience) { throw .wrongAudience }
        guard claims.exp > now else { throw .expired }
        let latest = now.addingReportingOverflow(policy.maxClockSkewSeconds).partialValue
        guard claims.iat <= latest, (claims.nbf ?? Int.min) <= latest else { throw .notYetValid }
        let lifetime = claims.exp.subtractingReportingOverflow(claims.iat)
        guard !lifetime.overflow, lifetime.partialValue <= policy.maxLifetimeSeconds else { throw .lifetimeTooLong }
        return TokenClaims(sub: claims.sub, name: name, iat: claims.iat, exp: claims.exp, role: nil)
    }
}
