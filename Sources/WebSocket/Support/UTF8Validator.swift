/// Incremental UTF-8 validation (RFC 3629, Unicode Table 3-7) that may be fed a message in
/// pieces split at any byte, and fails on the first byte that can no longer start or continue a
/// well-formed sequence — so a text message is refused before its end arrives (close 1007).
///
/// Runs of ASCII are skipped 32 bytes at a time.
public struct UTF8Validator: Sendable, Hashable {
    /// Continuation bytes still expected by the sequence in progress (0 = between sequences).
    @usableFromInline var needed: UInt8 = 0
    /// Inclusive bounds of the next continuation byte (narrowed after E0, ED, F0, F4).
    @usableFromInline var lower: UInt8 = 0x80
    @usableFromInline var upper: UInt8 = 0xBF

    /// A validator at the start of a message.
    @inlinable
    public init() {}

    /// Whether the bytes so far end on a code point boundary (a message may end here).
    @inlinable
    public var isComplete: Bool { needed == 0 }

    /// Starts over for a new message.
    @inlinable
    public mutating func reset() { self = UTF8Validator() }

    /// Validates the next `count` bytes at `pointer`; returns false at the first invalid byte.
    /// After a false return the validator's state is unspecified; reset it before reuse.
    @inlinable
    public mutating func validate(_ pointer: UnsafeRawPointer, count: Int) -> Bool {
        var index = 0
        while index < count {
            if needed == 0 {
                // Fast path: whole blocks of ASCII.
                while index &+ 32 <= count {
                    let a = pointer.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    let b = pointer.loadUnaligned(fromByteOffset: index &+ 8, as: UInt64.self)
                    let c = pointer.loadUnaligned(fromByteOffset: index &+ 16, as: UInt64.self)
                    let d = pointer.loadUnaligned(fromByteOffset: index &+ 24, as: UInt64.self)
                    if (a | b | c | d) & 0x8080_8080_8080_8080 != 0 { break }
                    index &+= 32
                }
                while index &+ 8 <= count {
                    let a = pointer.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    if a & 0x8080_8080_8080_8080 != 0 { break }
                    index &+= 8
                }
                guard index < count else { return true }
                let byte = pointer.load(fromByteOffset: index, as: UInt8.self)
                index &+= 1
                if byte < 0x80 { continue }
                switch byte {
                case 0xC2...0xDF:
                    needed = 1
                case 0xE0:
                    needed = 2; lower = 0xA0
                case 0xE1...0xEC, 0xEE...0xEF:
                    needed = 2
                case 0xED:
                    needed = 2; upper = 0x9F
                case 0xF0:
                    needed = 3; lower = 0x90
                case 0xF1...0xF3:
                    needed = 3
                case 0xF4:
                    needed = 3; upper = 0x8F
                default:
                    return false
                }
            } else {
                let byte = pointer.load(fromByteOffset: index, as: UInt8.self)
                index &+= 1
                guard byte >= lower, byte <= upper else { return false }
                lower = 0x80
                upper = 0xBF
                needed &-= 1
            }
        }
        return true
    }

    /// Validates `bytes` (convenience for tests).
    @inlinable
    public mutating func validate<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        let array = Array(bytes)
        return array.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return true }
            return validate(base, count: raw.count)
        }
    }
}
