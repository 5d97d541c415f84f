/// Random identifiers from the system's cryptographic generator.
enum SecureToken {
    /// Letters that cannot be mistaken for each other when read aloud or typed: no 0/O, 1/I/L.
    static let joinCodeAlphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")

    /// A join code of `length` characters.
    static func joinCode(length: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in joinCodeAlphabet[Int.random(in: 0..<joinCodeAlphabet.count, using: &generator)] })
    }

    /// 128 random bits as 32 lowercase hex digits.
    static func hex128() -> String {
        var generator = SystemRandomNumberGenerator()
        let a = generator.next() as UInt64, b = generator.next() as UInt64
        return hex(a) + hex(b)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
