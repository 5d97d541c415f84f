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

    /// Whether `POST /api/dev/sign-in` answers on a hub bound to `host`.
    public func devSignInEnabled(host: String) throws(SettingsError) -> Bool {
        switch devSignIn?.lowercased() {
        case nil: return Self.isLoopback(host)
        case "on": return true
        case "off": return false
        case let other?:
            throw .invalidValue(key: "http.devSignIn", value: String(other.prefix(40)), source: "settings", expected: "on or off")
        }
    }

    /// Whether `host` (the address the hub binds) is reachable from this machine only.
    static func isLoopback(_ host: String) -> Bool {
        let name = host.lowercased()
        return name == "localhost" || name == "::1" || name.hasPrefix("127.")
    }
}
