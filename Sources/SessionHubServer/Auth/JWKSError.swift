/// Why the identity provider's keys could not be loaded. At start it stops `sessionhub serve`
/// (exit 78) with its ``code``; on a later refresh it is logged and the keys already loaded stay.
public enum JWKSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `token.*` settings contradict each other or name an unusable URL.
    case configuration(String)
    /// The file could not be read, or the URL not fetched (connection, TLS, status, size, time).
    case unreadable(source: String, reason: String)
    /// Not a JSON object with a `keys` array of objects (RFC 7517 §5).
    case invalid(source: String, reason: String)
    /// A key of a supported type (RSA, or EC on P-256) whose parameters are not a usable key.
    case badKey(kid: String, reason: String)
    /// The set holds no RS256 or ES256 signing key.
    case noUsableKey(source: String)

    /// A stable snake_case code.
    public var code: String {
        switch self {
        case .configuration: return "jwks_config"
        case .unreadable: return "jwks_unreadable"
        case .invalid: return "jwks_invalid"
        case .badKey: return "jwks_bad_key"
        case .noUsableKey: return "jwks_no_keys"
        }
    }

    /// One line for the operator, starting with the code.
    public var description: String {
        switch self {
        case .configuration(let problem): return "\(code): \(problem)"
        case .unreadable(let source, let reason): return "\(code): cannot read the JWKS at \(source): \(reason)"
        case .invalid(let source, let reason): return "\(code): the JWKS at \(source) is invalid: \(reason)"
        case .badKey(let kid, let reason): return "\(code): JWKS key \(kid): \(reason)"
        case .noUsableKey(let source): return "\(code): the JWKS at \(source) holds no RS256 or ES256 signing key"
        }
    }
}
