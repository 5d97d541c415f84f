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

    /// The longest `sub` a token may carry, UTF-8 bytes (and at least one byte): the hub's own
    /// tokens, an identity provider's and `sessionhub token --user` alike.
    public static let maxSubjectBytes = 128
    /// The longest `name` a token may carry, UTF-8 bytes (an identity provider's longer names
    /// are cut to it, ``IdentityProviderClaims``).
    public static let maxNameBytes = 128

    /// Whether this is an operator token.
    public var isAdmin: Bool { role == "admin" }

    /// Whether `sub` or `name` holds a control character (C0, DEL or C1), which a token may
    /// not carry: they would reach logs and other players' screens.
    public var hasControlCharacters: Bool {
        Self.hasControlCharacters(sub) || Self.hasControlCharacters(name)
    }

    /// Whether `text` holds a C0 (U+0000–U+001F), DEL (U+007F) or C1 (U+0080–U+009F) character.
    public static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }
}
