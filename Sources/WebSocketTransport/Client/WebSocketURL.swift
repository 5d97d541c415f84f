/// A parsed `ws://` URL.
public struct WebSocketURL: Sendable, Hashable, CustomStringConvertible {
    /// Host name or address (IPv6 without brackets).
    public var host: String
    /// Port (default 80).
    public var port: Int
    /// Request target: path and query, at least "/".
    public var target: String
    /// `wss://`: the connection runs over TLS (default port 443).
    public var isSecure: Bool

    /// Errors for URLs this client cannot use.
    public enum ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// Only ws:// is supported; terminate TLS in front of the hub (see deploy/nginx).
        case unsupportedScheme(String)
        /// Host or port missing or malformed.
        case malformed(String)

        /// A readable message.
        public var description: String {
            switch self {
            case .unsupportedScheme(let scheme): return "unsupported scheme '\(scheme)': use ws:// or wss://"
            case .malformed(let url): return "malformed WebSocket URL: \(url)"
            }
        }
    }

    /// Parses `ws://host[:port][/path][?query]`.
    public init(parsing text: String) throws(ParseError) {
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else { throw .malformed(text) }
        let scheme = text[..<colon].lowercased()
        guard scheme == "ws" || scheme == "wss" else { throw .unsupportedScheme(scheme) }
        let isSecure = scheme == "wss"
        let rest = text[text.index(colon, offsetBy: 3)...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var target = String(rest[authorityEnd...])
        if target.isEmpty || target.first == "?" { target = "/" + target }
        var host = Substring(authority)
        var port = isSecure ? 443 : 80
        if host.first == "[" {
            guard let close = host.firstIndex(of: "]") else { throw .malformed(text) }
            let after = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if after.first == ":" {
                guard let value = Int(after.dropFirst()), (1...65535).contains(value) else { throw .malformed(text) }
                port = value
            } else if !after.isEmpty { throw .malformed(text) }
        } else if let colon = host.lastIndex(of: ":") {
            guard let value = Int(host[host.index(after: colon)...]), (1...65535).contains(value) else { throw .malformed(text) }
            port = value
            host = host[..<colon]
        }
        guard !host.isEmpty else { throw .malformed(text) }
        self.host = String(host)
        self.port = port
        self.target = target
        self.isSecure = isSecure
    }

    /// The value for the Host header.
    public var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (isSecure ? 443 : 80) ? name : "\(name):\(port)"
    }

    /// The URL as text.
    public var description: String { (isSecure ? "wss://" : "ws://") + hostHeader + target }
}
