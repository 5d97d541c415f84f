/// The 4-byte masking key of a client frame (RFC 6455 §5.3).
public struct WebSocketMaskKey: Sendable, Hashable {
    /// The key's bytes in wire order.
    public var b0: UInt8, b1: UInt8, b2: UInt8, b3: UInt8

    /// Creates a key from its four bytes in wire order.
    @inlinable
    public init(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) {
        self.b0 = b0
        self.b1 = b1
        self.b2 = b2
        self.b3 = b3
    }

    /// A fresh key from a cryptographically secure generator, as RFC 6455 §5.3 requires of clients.
    public static func random() -> WebSocketMaskKey {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// A key drawn from `generator` (tests pass a seeded one).
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> WebSocketMaskKey {
        let value = UInt32.random(in: .min ... .max, using: &generator)
        return WebSocketMaskKey(UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
                                UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 24))
    }

    /// The key as it sits in memory (little-endian load of the wire bytes), rotated so that byte
    /// `phase` of the key lines up with the first byte.
    @inlinable
    func word32(phase: Int) -> UInt32 {
        let raw = UInt32(b0) | UInt32(b1) << 8 | UInt32(b2) << 16 | UInt32(b3) << 24
        let shift = UInt32((phase & 3) * 8)
        return shift == 0 ? raw : (raw >> shift) | (raw << (32 - shift))
    }

    /// The key byte at `index` (mod 4).
    @inlinable
    public subscript(index: Int) -> UInt8 {
        switch index & 3 {
        case 0: return b0
        case 1: return b1
        case 2: return b2
        default: return b3
        }
    }
}
