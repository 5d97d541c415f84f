/// What a SessionHub token says about its bearer.
public struct TokenClaims: Codable, Sendable, Hashable {
    /// The user id (`sub`).
    public var sub: String
    /// Display name.
    public var name: String
    /// Issued at, seconds since the epoch.
    public var iat: Int
    /// Expires at, seconds since the epoch.
    public var exp: Int
    /// "admin" for operator tokens; nil for players.
    public var role: String?

    /// Creates claims.
    public init(sub: String, name: String, iat: Int, exp: Int, role: String? = nil) {
        self.sub = sub
        self.name = name
        self.iat = iat
        self.exp = exp
        self.role = role
    }

    /// Whether this is an operator token.
    public var isAdmin: Bool { role == "admin" }
}
