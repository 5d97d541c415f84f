/// The `Sec-WebSocket-Key` / `Sec-WebSocket-Accept` pair of the opening handshake (RFC 6455 §1.3, §4.2.2).
public enum WebSocketAccept {
    /// The GUID that RFC 6455 §1.3 appends to the key before hashing.
    public static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The `Sec-WebSocket-Accept` value for `key`: base64(SHA-1(key + GUID)).
    ///
    /// `key` is used exactly as received (already trimmed of surrounding whitespace); it is not
    /// decoded, as the RFC requires.
    public static func value(forKey key: some StringProtocol) -> String {
        var bytes = Array(key.utf8)
        bytes.append(contentsOf: guid.utf8)
        return Base64.encode(SHA1.hash(bytes))
    }

    /// Whether `key` is a valid `Sec-WebSocket-Key`: canonical padded base64 of exactly 16 bytes
    /// (RFC 6455 §4.1 item 7, §4.2.1 item 5).
    public static func isValidKey(_ key: some StringProtocol) -> Bool {
        Base64.decode(key)?.count == 16
    }

    /// A fresh `Sec-WebSocket-Key`: 16 bytes from the system's secure random number generator, base64.
    public static func makeKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return makeKey(using: &generator)
    }

    /// A `Sec-WebSocket-Key` of 16 bytes drawn from `generator` (tests pass a seeded one).
    public static func makeKey<G: RandomNumberGenerator>(using generator: inout G) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for _ in 0..<2 {
            let word = generator.next()
            for shift in stride(from: 0, to: 64, by: 8) {
                bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        return Base64.encode(bytes)
    }
}
