/// The hub's one token check: HS256 tokens go to its own ``TokenAuthority`` (the secret of
/// `sessionhub token`, for development and operators), RS256 and ES256 tokens to the identity
/// provider's ``IdentityProviderVerifier`` when one is configured. Any other `alg` (`none`
/// included) is `token_algorithm`; a token is never checked with a key of another algorithm,
/// so an HS256 token "signed" with an RSA public key meets the hub's secret and fails.
public struct HubTokenVerifier: TokenVerifier {
    /// The hub's own HS256 tokens.
    public let hub: TokenAuthority
    /// The identity provider's tokens, if configured.
    public let identityProvider: IdentityProviderVerifier?

    /// Composes the two.
    public init(hub: TokenAuthority, identityProvider: IdentityProviderVerifier? = nil) {
        self.hub = hub
        self.identityProvider = identityProvider
    }

    /// Checks `token` at `now` with the verifier its `alg` names.
    public func verify(_ token: String, now: Int) throws(AuthError) -> TokenClaims {
        guard let identityProvider else { return try hub.verify(token, now: now) }
        guard token.utf8.count <= IdentityProviderVerifier.maxTokenBytes else { throw .malformed }
        switch JWTParts.algorithm(of: token) {
        case JSONWebKey.Algorithm.rs256.rawValue, JSONWebKey.Algorithm.es256.rawValue:
            return try identityProvider.verify(token, now: now)
        default:
            return try hub.verify(token, now: now)
        }
    }
}
