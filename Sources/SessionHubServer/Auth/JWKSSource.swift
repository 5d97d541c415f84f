/// Where the identity provider's JWKS comes from.
public enum JWKSSource: Sendable, Equatable, CustomStringConvertible {
    /// A file on this machine.
    case file(String)
    /// An `http://` or `https://` URL.
    case url(JWKSURL)

    /// The file path or the URL.
    public var description: String {
        switch self {
        case .file(let path): return path
        case .url(let url): return url.description
        }
    }
}
