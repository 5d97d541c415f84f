import COpenSSLCrypto

/// HMAC-SHA256 and constant-time comparison from the system's libcrypto (OpenSSL).
enum HMACSHA256 {
    /// A key made ready once: its HMAC state (the key already absorbed) is kept, and each MAC
    /// starts from a copy of it.
    ///
    /// OpenSSL 3's one-shot `HMAC()` looks the algorithm up in its provider and keys a new
    /// context on every call, several times the cost of the MAC itself (each `join` issues a
    /// resume token, each connection verifies a bearer token).
    final class Key: @unchecked Sendable {
        // @unchecked: `template` is written only here and read, never changed, by `mac(_:)`
        // (`EVP_MAC_CTX_dup` only reads its source), so concurrent calls are safe.
        private let template: OpaquePointer?
        /// The key itself, for the one-shot fallback when OpenSSL could not build the template.
        private let bytes: [UInt8]

        /// Prepares `key` (any length; HMAC hashes longer keys).
        init(_ key: [UInt8]) {
            bytes = key
            template = Self.makeTemplate(key)
        }

        deinit { EVP_MAC_CTX_free(template) }

        /// The 32-byte MAC of `message`.
        func mac(_ message: [UInt8]) -> [UInt8] {
            var output = [UInt8](repeating: 0, count: 32)
            if let template, let context = EVP_MAC_CTX_dup(template) {
                defer { EVP_MAC_CTX_free(context) }
                var length = 0
                let done = message.withUnsafeBufferPointer { input in
                    output.withUnsafeMutableBufferPointer { out in
                        EVP_MAC_update(context, input.baseAddress, input.count) == 1
                            && EVP_MAC_final(context, out.baseAddress, &length, out.count) == 1
                    }
                }
                if done, length == 32 { return output }
            }
            var length: UInt32 = 0
            bytes.withUnsafeBufferPointer { keyBytes in
                message.withUnsafeBufferPointer { messageBytes in
                    output.withUnsafeMutableBufferPointer { out in
                        _ = HMAC(EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count),
                                 messageBytes.baseAddress, messageBytes.count, out.baseAddress, &length)
                    }
                }
            }
            return output
        }

        /// An HMAC-SHA256 context keyed with `key`, or nil when OpenSSL could not make one.
        private static func makeTemplate(_ key: [UInt8]) -> OpaquePointer? {
            guard let algorithm = EVP_MAC_fetch(nil, "HMAC", nil) else { return nil }
            // The context holds its own reference to the algorithm.
            defer { EVP_MAC_free(algorithm) }
            guard let context = EVP_MAC_CTX_new(algorithm) else { return nil }
            let keyed = "digest".withCString { name in
                "SHA256".withCString { digest in
                    var parameters = [OSSL_PARAM_construct_utf8_string(name, UnsafeMutablePointer(mutating: digest), 0),
                                      OSSL_PARAM_construct_end()]
                    // A zero-length key still needs a non-null pointer.
                    let storage = key.isEmpty ? [UInt8(0)] : key
                    return storage.withUnsafeBufferPointer { keyBytes in
                        EVP_MAC_init(context, keyBytes.baseAddress, key.count, &parameters) == 1
                    }
                }
            }
            guard keyed else {
                EVP_MAC_CTX_free(context)
                return nil
            }
            return context
        }
    }

    /// The 32-byte MAC of `message` under `key` (for one-off MACs; keep a ``Key`` for repeated ones).
    static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        Key(key).mac(message)
    }

    /// Compares two byte strings in time that depends only on their length.
    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, a.count) == 0 }
        }
    }

    /// `count` cryptographically secure random bytes, from the kernel (`getrandom(2)`, through
    /// `SystemRandomNumberGenerator`): a join's resume token needs 12. OpenSSL's `RAND_bytes` did
    /// the same at many times the cost (0.8 % of the hub's CPU in a 9,000 deliveries/s profile).
    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 7)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) }
        }
        bytes.removeLast(bytes.count - count)
        return bytes
    }
}
