/// XOR masking of payload bytes (RFC 6455 §5.3), a SIMD vector at a time.
///
/// Masking is its own inverse, so the same routines mask and unmask. `phase` is the position in
/// the key of the first byte (the payload offset mod 4), so a payload may be processed in pieces.
public enum Masking {
    /// Masks `count` bytes at `pointer` in place.
    @inlinable
    public static func apply(key: WebSocketMaskKey, phase: Int, to pointer: UnsafeMutableRawPointer, count: Int) {
        transform(key: key, phase: phase, from: UnsafeRawPointer(pointer), to: pointer, count: count)
    }

    /// Reads `count` bytes at `source`, masks them and writes them to `destination`
    /// (which may equal `source`, but must not otherwise overlap it).
    @inlinable
    public static func transform(
        key: WebSocketMaskKey,
        phase: Int,
        from source: UnsafeRawPointer,
        to destination: UnsafeMutableRawPointer,
        count: Int
    ) {
        let k32 = key.word32(phase: phase)
        var offset = 0
        if count >= 16 {
            let k64 = UInt64(k32) | UInt64(k32) << 32
            let lanes = SIMD2<UInt64>(k64, k64)
            let keyVector = unsafeBitCast(lanes, to: SIMD16<UInt8>.self)
            let wide = count &- 63
            while offset < wide {
                let a = source.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
                let b = source.loadUnaligned(fromByteOffset: offset &+ 16, as: SIMD16<UInt8>.self)
                let c = source.loadUnaligned(fromByteOffset: offset &+ 32, as: SIMD16<UInt8>.self)
                let d = source.loadUnaligned(fromByteOffset: offset &+ 48, as: SIMD16<UInt8>.self)
                destination.storeBytes(of: a ^ keyVector, toByteOffset: offset, as: SIMD16<UInt8>.self)
                destination.storeBytes(of: b ^ keyVector, toByteOffset: offset &+ 16, as: SIMD16<UInt8>.self)
                destination.storeBytes(of: c ^ keyVector, toByteOffset: offset &+ 32, as: SIMD16<UInt8>.self)
                destination.storeBytes(of: d ^ keyVector, toByteOffset: offset &+ 48, as: SIMD16<UInt8>.self)
                offset &+= 64
            }
            let narrow = count &- 15
            while offset < narrow {
                let a = source.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
                destination.storeBytes(of: a ^ keyVector, toByteOffset: offset, as: SIMD16<UInt8>.self)
                offset &+= 16
            }
        }
        var k = k32
        while offset &+ 4 <= count {
            let word = source.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            destination.storeBytes(of: word ^ k, toByteOffset: offset, as: UInt32.self)
            offset &+= 4
        }
        while offset < count {
            let byte = source.load(fromByteOffset: offset, as: UInt8.self)
            destination.storeBytes(of: byte ^ UInt8(truncatingIfNeeded: k), toByteOffset: offset, as: UInt8.self)
            k = k >> 8
            offset &+= 1
        }
    }

    /// Masks `bytes` in place (convenience for tests and small payloads).
    @inlinable
    public static func apply(key: WebSocketMaskKey, phase: Int = 0, to bytes: inout [UInt8]) {
        let count = bytes.count
        bytes.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            apply(key: key, phase: phase, to: base, count: count)
        }
    }
}
