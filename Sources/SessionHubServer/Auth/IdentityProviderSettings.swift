/// Where the hub finds the app's identity provider (IdP) and what it requires of its tokens:
/// the `token.jwks*`, `token.issuer` and `token.audience` settings. With neither a JWKS file nor
/// a URL, only the hub's own HS256 tokens are accepted (``TokenAuthority``).
public struct IdentityProviderSettings: Sendable, Equatable {
    /// A JWKS file (RFC 7517 §5) holding the IdP's public keys; re-read when it changes.
    public var jwksFile: String?
    /// An `https://` URL serving the IdP's JWKS (e.g. the `jwks_uri` of its OpenID
    /// configuration); fetched at start, then every ``refreshSeconds`` and on an unknown `kid`.
    /// Plain `http://` only to a loopback address: whoever can change the key set can sign in
    /// as anyone.
    public var jwksURL: String?
    /// The `iss` a token must carry exactly; nil accepts any issuer.
    public var issuer: String?
    /// A value the token's `aud` (a string or an array of strings) must hold. Required with a
    /// JWKS (many providers sign every app's tokens with one key set, so without it a token made
    /// for another app gets in); `*` accepts any audience, knowingly.
    public var audience: String?

    /// Accepts any audience when ``audience`` is set to this.
    public static let anyAudience = "*"

    /// The audience tokens must hold, nil for any (``anyAudience``).
    public var requiredAudience: String? { audience == Self.anyAudience ? nil : audience }
    /// Period of the JWKS refresh, seconds. Default 300.
    public var refreshSeconds = 300
    /// Least time between two refreshes, seconds, however many unknown `kid`s arrive (a file is
    /// also checked for changes this often). Default 10.
    public var minRefreshSeconds = 10

    /// None: only the hub's HS256 tokens.
    public init() {}

    /// Whether any JWKS source is configured.
    public var isEnabled: Bool { jwksFile != nil || jwksURL != nil }

    /// The configured source, or why the settings are unusable.
    public func source() throws(JWKSError) -> JWKSSource? {
        switch (jwksFile, jwksURL) {
        case (nil, nil):
            if issuer != nil || audience != nil {
                throw .configuration("token.issuer and token.audience need token.jwksFile or token.jwksUrl")
            }
            return nil
        case (let file?, nil):
            try requireAudience()
            return .file(file)
        case (nil, let url?):
            guard let parsed = JWKSURL(url) else {
                throw .configuration("token.jwksUrl \(url.prefix(200)) is not an http:// or https:// URL")
            }
            guard parsed.isTLS || parsed.isLoopback else {
                throw .configuration("token.jwksUrl must be https:// (plain http:// only to a loopback address): whoever can change the key set on the way can sign in as anyone")
            }
            try requireAudience()
            return .url(parsed)
        case (.some, .some):
            throw .configuration("set token.jwksFile or token.jwksUrl, not both")
        }
    }

    private func requireAudience() throws(JWKSError) {
        guard audience != nil else {
            throw .configuration("token.audience is required with a JWKS: without it, tokens the provider issued for any of its apps get in (set it to your API's audience, or to \(Self.anyAudience) to accept any)")
        }
    }
}
