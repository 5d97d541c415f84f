import Foundation

/// An `http://` or `https://` URL of a JWKS, split for a request: host, port, path and query.
public struct JWKSURL: Sendable, Equatable, CustomStringConvertible {
    /// Whether the connection uses TLS (`https`).
    public var isTLS: Bool
    /// The host name or address (an IPv6 address without brackets).
    public var host: String
    /// The port (443 or 80 by default).
    public var port: Int
    /// The request target: path and query, at least `/`.
    public var target: String

    /// Parses `text`; nil unless it is an absolute `http`/`https` URL with a host and no user info.
    public init?(_ text: String) {
        guard let components = URLComponents(string: text),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              var host = components.host, !host.isEmpty,
              components.user == nil, components.password == nil
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        isTLS = scheme == "https"
        self.host = host
        port = components.port ?? (isTLS ? 443 : 80)
        guard (1...65535).contains(port) else { return nil }
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?" + query }
        self.target = target
    }

    /// Whether the host is a loopback address or `localhost`.
    public var isLoopback: Bool {
        let name = host.lowercased()
        return name == "localhost" || name == "::1" || name.hasPrefix("127.")
    }

    /// The URL as given back: scheme, host, port, target.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(isTLS ? "https" : "http")://\(shownHost):\(port)\(target)"
    }
}
