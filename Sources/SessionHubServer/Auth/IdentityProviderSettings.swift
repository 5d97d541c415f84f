/// Where the hub finds the app's identity provider (IdP) and what it requires of its tokens:
/// the `token.jwks*`, `token.issuer` and `token.audience` settings. With neither a JWKS file nor
/// a URL, only the hub's own HS256 tokens are accepted (``TokenAuthority``).
public struct IdentityProviderSettings: Sendable, Equatable {
    /// A JWKS file (RFC 7517 §5) holding the IdP's public keys; re-read when it changes.
    public var jwksFile: String?
    /// An `http://` or `https://` URL serving the IdP's JWKS (e.g. the `jwks_uri` of its OpenID
    /// configuration); fetched at start, then every ``refreshSeconds`` and on an unknown `kid`.
    public var jwksURL: String?
    /// The `iss` a token must carry exactly; nil accepts any issuer.
    public var issuer: String?
    /// A value the token's `aud` (a string or an array of strings) must hold; nil accepts any.
    public var audience: String?
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
            return .file(file)
        case (nil, let url?):
            guard let parsed = JWKSURL(url) else {
                throw .configuration("token.jwksUrl \(url.prefix(200)) is not an http:// or https:// URL")
            }
            return .url(parsed)
        case (.some, .some):
            throw .configuration("set token.jwksFile or token.jwksUrl, not both")
        }
    }
}
