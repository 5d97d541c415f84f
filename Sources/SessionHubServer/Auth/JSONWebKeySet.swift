import Foundation

/// The identity provider's public signing keys, parsed from a JWKS document (RFC 7517 §5).
///
/// Keys the hub does not use (another key type, curve or algorithm, or `use: enc`) are left out.
/// A key of a supported type that is not a valid key (a legacy 1024-bit RSA key, a point off the
/// curve) is skipped and reported in ``skipped``, so one odd key does not block the provider's
/// others (nor a rotation); a set without any usable key is an error.
public struct JSONWebKeySet: Sendable {
    /// The usable keys, in the document's order.
    public let keys: [JSONWebKey]
    /// The keys of a supported type that were not valid keys: their `kid` (`-` without one) and
    /// why, for a warning.
    public let skipped: [(kid: String, error: JWKSError)]
    /// The most keys a set may hold.
    static let maxKeys = 100

    /// Parses `data`; `source` names it in errors.
    public init(data: [UInt8], source: String) throws(JWKSError) {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(data))
        } catch {
            throw .invalid(source: source, reason: "not JSON")
        }
        guard let root = object as? [String: Any], let entries = root["keys"] as? [Any] else {
            throw .invalid(source: source, reason: "not an object with a keys array")
        }
        guard entries.count <= Self.maxKeys else {
            throw .invalid(source: source, reason: "more than \(Self.maxKeys) keys")
        }
        var keys: [JSONWebKey] = []
        var skipped: [(kid: String, error: JWKSError)] = []
        for entry in entries {
            guard let jwk = entry as? [String: Any] else { throw .invalid(source: source, reason: "a key is not an object") }
            do {
                if let key = try JSONWebKey(jwk) { keys.append(key) }
            } catch {
                skipped.append((jwk["kid"] as? String ?? "-", error))
            }
        }
        guard !keys.isEmpty else { throw skipped.first?.error ?? .noUsableKey(source: source) }
        self.keys = keys
        self.skipped = skipped
    }

    /// The key ids, for the log (`-` for a key without one).
    public var kids: [String] { keys.map { $0.kid ?? "-" } }
}
