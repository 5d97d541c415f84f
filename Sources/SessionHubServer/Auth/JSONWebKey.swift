import Crypto
import Foundation
import _CryptoExtras

/// One public signing key of the identity provider, from its JWKS (RFC 7517, RFC 7518 §6):
/// an RSA key for RS256 (at least 2048 bits) or a P-256 key for ES256.
public struct JSONWebKey: Sendable {
    /// The JWS algorithms the hub accepts from an identity provider.
    public enum Algorithm: String, Sendable, CaseIterable {
        /// RSASSA-PKCS1-v1_5 with SHA-256.
        case rs256 = "RS256"
        /// ECDSA on P-256 with SHA-256.
        case es256 = "ES256"
    }

    /// The key id (`kid`), if the set gives one.
    public let kid: String?
    /// The one algorithm this key verifies.
    public let algorithm: Algorithm
    // Two optionals, one set (by ``algorithm``), rather than an enum with a payload per key type:
    // such an enum keeps its case in the spare bits of the key object's pointer, which hides the
    // key from LeakSanitizer (the fuzz target then reports a key held for good as leaked).
    private let rsaKey: _RSA.Signing.PublicKey?
    private let p256Key: P256.Signing.PublicKey?

    /// A key from its JWK members; nil for a key the hub does not use (another `kty` or curve,
    /// another `alg`, or `use` other than `sig`).
    /// - Throws: ``JWKSError/badKey(kid:reason:)`` for an RSA or P-256 key whose parameters are
    ///   missing or do not make a key.
    init?(_ jwk: [String: Any]) throws(JWKSError) {
        let kid = jwk["kid"] as? String
        let name = kid ?? "(no kid)"
        if let use = jwk["use"] as? String, use != "sig" { return nil }
        let alg = jwk["alg"] as? String
        switch jwk["kty"] as? String {
        case "RSA":
            guard alg == nil || alg == Algorithm.rs256.rawValue else { return nil }
            guard let n = Self.bytes(jwk["n"]), let e = Self.bytes(jwk["e"]) else {
                throw .badKey(kid: name, reason: "RSA key without base64url n and e")
            }
            let key: _RSA.Signing.PublicKey
            do {
                key = try _RSA.Signing.PublicKey(n: n, e: e)
            } catch {
                throw .badKey(kid: name, reason: "RSA n and e make no key (\(error))")
            }
            guard key.keySizeInBits >= 2048 else {
                throw .badKey(kid: name, reason: "RSA key of \(key.keySizeInBits) bits (at least 2048)")
            }
            self.init(kid: kid, algorithm: .rs256, rsaKey: key, p256Key: nil)
        case "EC":
            guard jwk["crv"] as? String == "P-256", alg == nil || alg == Algorithm.es256.rawValue else { return nil }
            guard let x = Self.bytes(jwk["x"]), let y = Self.bytes(jwk["y"]), x.count == 32, y.count == 32 else {
                throw .badKey(kid: name, reason: "P-256 key without 32-byte base64url x and y")
            }
            do {
                let key = try P256.Signing.PublicKey(x963Representation: [0x04] + x + y)
                self.init(kid: kid, algorithm: .es256, rsaKey: nil, p256Key: key)
            } catch {
                throw .badKey(kid: name, reason: "x and y are not a point of P-256")
            }
        default:
            return nil
        }
    }

    private init(kid: String?, algorithm: Algorithm, rsaKey: _RSA.Signing.PublicKey?, p256Key: P256.Signing.PublicKey?) {
        self.kid = kid
        self.algorithm = algorithm
        self.rsaKey = rsaKey
        self.p256Key = p256Key
    }

    /// Whether `signature` (a JWS signature: PKCS#1 v1.5 bytes for RS256, `r || s` for ES256)
    /// signs `input` (the token's `header.payload`) under this key.
    func isValidSignature(_ signature: [UInt8], for input: [UInt8]) -> Bool {
        if let key = rsaKey {
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: input,
                                        padding: .insecurePKCS1v1_5)
        }
        if let key = p256Key, signature.count == 64,
           let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature) {
            return key.isValidSignature(parsed, for: input)
        }
        return false
    }

    /// A base64url member, padding tolerated (some providers pad).
    private static func bytes(_ value: Any?) -> [UInt8]? {
        guard var text = value as? String else { return nil }
        while text.hasSuffix("=") { text.removeLast() }
        return Base64URL.decode(Substring(text))
    }
}
