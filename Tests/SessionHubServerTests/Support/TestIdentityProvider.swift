import Crypto
import Foundation
import _CryptoExtras

/// A stand-in for an app's identity provider: signing keys made in the test (P-256 for ES256,
/// RSA 2048 for RS256), their JWKS, and real tokens signed with them.
struct TestIdentityProvider: Sendable {
    /// One signing key with its `kid`.
    enum Key: Sendable {
        case es256(kid: String, P256.Signing.PrivateKey)
        case rs256(kid: String, _RSA.Signing.PrivateKey)

        var kid: String {
            switch self {
            case .es256(let kid, _), .rs256(let kid, _): return kid
            }
        }

        var alg: String {
            switch self {
            case .es256: return "ES256"
            case .rs256: return "RS256"
            }
        }

        /// The public key as a JWK.
        var jwk: [String: String] {
            switch self {
            case .es256(let kid, let key):
                let point = Array(key.publicKey.x963Representation.dropFirst())
                return ["kty": "EC", "crv": "P-256", "kid": kid, "use": "sig", "alg": "ES256",
                        "x": b64(point[0..<32]), "y": b64(point[32..<64])]
            case .rs256(let kid, let key):
                let primitives = try! key.publicKey.getKeyPrimitives()
                return ["kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
                        "n": b64(primitives.modulus), "e": b64(primitives.publicExponent)]
            }
        }

        func sign(_ input: [UInt8]) -> [UInt8] {
            switch self {
            case .es256(_, let key): return Array(try! key.signature(for: Data(input)).rawRepresentation)
            case .rs256(_, let key): return Array(try! key.signature(for: Data(input), padding: .insecurePKCS1v1_5).rawRepresentation)
            }
        }
    }

    static let issuer = "https://idp.example.com/"
    static let audience = "sessionhub-app"

    static func es256(_ kid: String) -> Key { .es256(kid: kid, P256.Signing.PrivateKey()) }
    static func rs256(_ kid: String) -> Key { .rs256(kid: kid, try! _RSA.Signing.PrivateKey(keySize: .bits2048)) }

    /// A JWKS document of `keys`' public halves.
    static func jwks(_ keys: [Key]) -> Data {
        try! JSONSerialization.data(withJSONObject: ["keys": keys.map(\.jwk)], options: [.sortedKeys])
    }

    /// The claims a typical identity provider puts in an access token, at `now`.
    static func claims(sub: String = "idp|ana", now: Int, ttl: Int = 3600) -> [String: Any] {
        ["sub": sub, "iss": issuer, "aud": [audience, "other-api"], "iat": now, "exp": now + ttl,
         "preferred_username": "ana", "email": "ana@example.com", "scope": "openid profile", "azp": "app"]
    }

    /// A token of `claims` signed with `key`; `header` overrides header members (nil removes one).
    static func token(_ claims: [String: Any], key: Key, header: [String: String?] = [:]) -> String {
        var members: [String: String] = ["alg": key.alg, "typ": "JWT", "kid": key.kid]
        for (name, value) in header { members[name] = value }
        let head = b64(try! JSONSerialization.data(withJSONObject: members, options: [.sortedKeys]))
        let body = b64(try! JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
        let input = Array((head + "." + body).utf8)
        return head + "." + body + "." + b64(key.sign(input))
    }

    static func b64<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
