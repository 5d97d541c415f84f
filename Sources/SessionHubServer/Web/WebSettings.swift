/// What the hub offers browsers: cross-origin access to the JSON API (`http.corsOrigins`) and the
/// web player's development sign-in (`http.devSignIn`). docs/WEB.md.
public struct WebSettings: Sendable, Equatable {
    /// Origins whose pages may call `/api/…` (comma-separated, `*` for any); nil: no CORS headers.
    public var corsOrigins: String?
    /// `on` or `off`; nil (the default) turns the development sign-in on only while the hub
    /// listens on a loopback address, where nobody else can reach it.
    public var devSignIn: String?

    /// The defaults: no CORS, development sign-in on loopback only.
    public init() {}

    /// The CORS policy, nil when ``corsOrigins`` is not set.
    public func corsPolicy() throws(SettingsError) -> CORSPolicy? {
        guard let corsOrigins else { return nil }
        return try CORSPolicy(corsOrigins)
    }

    /// Who `POST /api/dev/sign-in` answers on a hub bound to `host` behind `trustedProxies`: nil
    /// when it is off. Unset (auto), it answers only while the hub listens on a loopback address
    /// with no proxy configured, and then only requests made on this machine without a proxy's
    /// forwarding headers (a reverse proxy on the same host would otherwise hand it to the world).
    public func devSignInAudience(host: String, trustedProxies: [String]) throws(SettingsError) -> DevSignIn.Audience? {
        switch devSignIn?.lowercased() {
        case nil: return Self.isLoopback(host) && trustedProxies.isEmpty ? .thisMachine : nil
        case "on": return .everyone
        case "off": return nil
        case let other?:
            throw .invalidValue(key: "http.devSignIn", value: String(other.prefix(40)), source: "settings", expected: "on or off")
        }
    }

    /// Whether `host` (an address the hub binds, or a peer's) is a loopback address: `localhost`,
    /// `::1`, or an IPv4 literal `127.x.x.x`.
    static func isLoopback(_ host: String) -> Bool {
        let name = host.lowercased()
        if name == "localhost" || name == "::1" || name == "::ffff:127.0.0.1" { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && Int(part).map { (0...255).contains($0) } == true }
    }
}
