import FuzzSupport
import NIOCore
import WebSocket

/// ``MessageInflater`` on its own, with a size limit.
///
/// Input: byte 0 = window bits (low 3 bits + 8), no context takeover (bit 3), round-trip mode
/// (bit 4); byte 1 = the limit (one of 0, 1, 64, 1000, 4096, 65536, 1 MiB); byte 2 = the split seed;
/// the rest = the compressed data of one or more messages (or, in round-trip mode, plain text
/// that the deflater compresses first).
///
/// Properties: nothing traps; output never exceeds the limit, whether the call succeeds or
/// throws; in round-trip mode what ``MessageDeflater`` compresses inflates back exactly, split
/// into any fragments, and fails with `messageTooLarge` exactly when it is over the limit.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInflater(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var reader = FuzzReader(FuzzDriver.bytes(data, size))
    let options = reader.byte()
    let windowBits = 8 + Int(options & 7)
    let noContextTakeover = options & 8 != 0
    let limits = [0, 1, 64, 1000, 4096, 65536, 1 << 20]
    let limit = limits[Int(reader.byte()) % limits.count]
    var generator = SplitMix(seed: UInt64(reader.byte()))
    let payload = reader.rest()
    guard let inflater = try? MessageInflater(windowBits: windowBits, noContextTakeover: noContextTakeover) else {
        fuzzCheck(false, "inflater with \(windowBits) window bits failed")
        return 0
    }
    if options & 16 != 0 {
        roundTrip(payload, inflater: inflater, limit: limit, generator: &generator)
        return 0
    }
    // Raw mode: the payload is cut into fragments; some end a message.
    var offset = 0
    var output = ByteBuffer()
    while offset < payload.count {
        let length = min(payload.count - offset, Int(generator.next() % 200))
        let isFinal = generator.next() % 3 == 0 || offset + length == payload.count
        let fragment = ByteBuffer(bytes: payload[offset..<offset + length])
        offset += length
        do {
            try inflater.inflate(fragment, isFinal: isFinal, into: &output, limit: limit)
        } catch {
            fuzzCheck(output.readableBytes <= limit, "output \(output.readableBytes) over limit \(limit) after \(error)")
            return 0
        }
        fuzzCheck(output.readableBytes <= limit, "output \(output.readableBytes) over limit \(limit)")
        if isFinal { output.clear() }
    }
    return 0
}

/// Compresses `message` (twice, so the second uses the context of the first unless context takeover
/// is off), then inflates each in random fragments.
private func roundTrip(_ message: [UInt8], inflater: MessageInflater, limit: Int, generator: inout SplitMix) {
    guard let deflater = try? MessageDeflater(windowBits: inflater.windowBits, noContextTakeover: inflater.noContextTakeover,
                                              level: Int32(generator.next() % 10), memoryLevel: 1 + Int32(generator.next() % 9))
    else {
        fuzzCheck(false, "deflater failed")
        return
    }
    for _ in 0..<2 {
        var compressed = ByteBuffer()
        deflater.compress(ByteBuffer(bytes: message), into: &compressed)
        let bytes = Array(compressed.readableBytesView)
        var output = ByteBuffer()
        var offset = 0
        do {
            repeat {
                let length = min(bytes.count - offset, Int(generator.next() % 64))
                let isFinal = offset + length == bytes.count
                try inflater.inflate(ByteBuffer(bytes: bytes[offset..<offset + length]), isFinal: isFinal, into: &output, limit: limit)
                offset += length
                if isFinal { break }
            } while true
        } catch PerMessageDeflateError.messageTooLarge {
            fuzzCheck(message.count > limit, "messageTooLarge for \(message.count) bytes under limit \(limit)")
            fuzzCheck(output.readableBytes <= limit, "output over the limit")
            return
        } catch {
            fuzzCheck(false, "deflated data failed to inflate: \(error)")
            return
        }
        fuzzCheck(message.count <= limit, "\(message.count) bytes passed limit \(limit)")
        fuzzCheck(Array(output.readableBytesView) == message, "round trip changed the message")
    }
}

@main
enum FuzzInflaterMain {
    static func main() {
        FuzzDriver.run(fuzzInflater)
    }
}
