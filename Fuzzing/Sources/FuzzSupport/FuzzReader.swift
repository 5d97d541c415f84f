/// Reads an input front to back: the first bytes choose options, the rest is the data.
/// Running out of bytes yields zeros, so every input is usable.
public struct FuzzReader {
    private let bytes: [UInt8]
    private var index = 0

    /// A reader at the start of `bytes`.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Bytes not read yet.
    public var remainingCount: Int { bytes.count - index }

    /// The next byte, or 0 at the end.
    public mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// The next two bytes as a little-endian number.
    public mutating func uint16() -> UInt16 {
        UInt16(byte()) | UInt16(byte()) << 8
    }

    /// Up to `count` next bytes.
    public mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, index + max(0, count))
        defer { index = end }
        return Array(bytes[index..<end])
    }

    /// Everything not read yet.
    public mutating func rest() -> [UInt8] {
        take(remainingCount)
    }
}

/// A small deterministic generator (SplitMix64): the same input always splits the same way,
/// so every crash reproduces from its file alone.
public struct SplitMix: RandomNumberGenerator {
    private var state: UInt64

    /// A generator seeded with `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
