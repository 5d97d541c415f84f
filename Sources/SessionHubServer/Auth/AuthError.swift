/// Why a token was refused. The `reason` goes into the close frame (1008) or the HTTP error.
public enum AuthError: Error, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// No token was presented.
    case missing
    /// Not three base64url parts of JSON.
    case malformed
    /// Not HS256, nor RS256 or ES256 with an identity provider's keys configured; or the key its
    /// `kid` names is for another algorithm.
    case unsupportedAlgorithm
    /// The signature does not match this hub's secret.
    case badSignature
    /// Past its `exp`.
    case expired
    /// Claims missing or invalid (empty `sub`, over-long fields).
    case invalidClaims
    /// A control character (C0, DEL or C1) in `sub` or `name`.
    case controlCharacters
    /// `iat` later than now plus the allowed clock skew (``TokenPolicy/maxClockSkewSeconds``).
    case notYetValid
    /// `exp - iat` over ``TokenPolicy/maxLifetimeSeconds``.
    case lifetimeTooLong
    /// An RS256 or ES256 token whose `kid` names no key of the identity provider's JWKS (as last
    /// loaded; a refresh is asked for), or without a `kid` where the set has several keys.
    case unknownKey
    /// `iss` is not the configured issuer (`token.issuer`).
    case wrongIssuer
    /// `aud` does not name the configured audience (`token.audience`).
    case wrongAudience

    /// A stable snake_case code.
    public var code: String {
        switch self {
        case .missing: return "token_missing"
        case .malformed: return "token_malformed"
        case .unsupportedAlgorithm: return "token_algorithm"
        case .badSignature: return "token_signature"
        case .expired: return "token_expired"
        case .invalidClaims: return "token_claims"
        case .controlCharacters: return "token_control_characters"
        case .notYetValid: return "token_not_yet_valid"
        case .lifetimeTooLong: return "token_lifetime"
        case .unknownKey: return "token_unknown_key"
        case .wrongIssuer: return "token_issuer"
        case .wrongAudience: return "token_audience"
        }
    }

    /// A human reason.
    public var description: String {
        switch self {
        case .missing: return "authentication required: present a bearer token"
        case .malformed: return "malformed token"
        case .unsupportedAlgorithm: return "unsupported token algorithm (HS256, or RS256 and ES256 with the identity provider's keys)"
        case .badSignature: return "invalid token signature"
        case .expired: return "token expired"
        case .invalidClaims: return "invalid token claims"
        case .controlCharacters: return "control characters in sub or name"
        case .notYetValid: return "token issued in the future (iat)"
        case .lifetimeTooLong: return "token lifetime (exp - iat) too long"
        case .unknownKey: return "token signed with a key the hub does not know (kid)"
        case .wrongIssuer: return "token from another issuer (iss)"
        case .wrongAudience: return "token for another audience (aud)"
        }
    }
}
