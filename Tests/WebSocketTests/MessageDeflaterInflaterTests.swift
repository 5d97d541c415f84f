import NIOCore
import Testing

@testable import WebSocket

@Suite("permessage-deflate compression")
struct MessageDeflaterInflaterTests {
    // MARK: Helpers

    static func hex(_ string: String) -> [UInt8] {
        string.split(separator: " ").compactMap { UInt8($0, radix: 16) }
    }

    static func buffer(_ bytes: [UInt8]) -> ByteBuffer {
        ByteBuffer(bytes: bytes)
    }

    static func compress(_ message: [UInt8], with deflater: MessageDeflater) -> [UInt8] {
        var output = ByteBuffer()
        deflater.compress(Self.buffer(message), into: &output)
        return Array(output.readableBytesView)
    }

    /// Inflates one whole message delivered as a single final frame.
    static func inflate(_ payload: [UInt8], with inflater: MessageInflater, limit: Int = 1 << 24) throws -> [UInt8] {
        var output = ByteBuffer()
        try inflater.inflate(Self.buffer(payload), isFinal: true, into: &output, limit: limit)
        return Array(output.readableBytesView)
    }

    /// Inflates one message delivered as frames split at random points (some frames empty).
    static func inflateFragmented(
        _ payload: [UInt8],
        with inflater: MessageInflater,
        using generator: inout SeededGenerator,
        limit: Int = 1 << 24
    ) throws -> [UInt8] {
        var output = ByteBuffer()
        var start = 0
        repeat {
            let remaining = payload.count - start
            let length = remaining == 0 ? 0 : Int.random(in: 0...min(remaining, 1 + remaining / 3), using: &generator)
            let isFinal = start + length == payload.count && Bool.random(using: &generator)
            try inflater.inflate(
                Self.buffer(Array(payload[start..<start + length])),
                isFinal: isFinal,
                into: &output,
                limit: limit
            )
            start += length
            if isFinal { break }
        } while true
        return Array(output.readableBytesView)
    }

    static func randomBytes(_ count: Int, using generator: inout SeededGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// Text-like data that compresses well (words from a small vocabulary).
    static func compressibleBytes(_ count: Int, using generator: inout SeededGenerator) -> [UInt8] {
        let words = ["session", "line", "hello", "the", "player", "role", "{\"seq\":", "}", " ", "scenario"]
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 16)
        while bytes.count < count {
            bytes += Array(words[Int.random(in: 0..<words.count, using: &generator)].utf8)
        }
        return Array(bytes.prefix(count))
    }

    static let hello = Array("Hello".utf8)
    static let helloCompressed = hex("f2 48 cd c9 c9 07 00")

    // MARK: RFC 7692 §7.2.3 examples

    @Test("§7.2.3.1: \"Hello\" compresses to f2 48 cd c9 c9 07 00", arguments: [Int32(1), 6, 9])
    func helloCompresses(level: Int32) throws {
        let deflater = try MessageDeflater(windowBits: 15, noContextTakeover: false, level: level, memoryLevel: 4)
        #expect(Self.compress(Self.hello, with: deflater) == Self.helloCompressed)
    }

    @Test("§7.2.3.1: f2 48 cd c9 c9 07 00 inflates to \"Hello\"")
    func helloInflates() throws {
        let inflater = try MessageInflater(windowBits: 15, noContextTakeover: false)
        #expect(try Self.inflate(Self.helloCompressed, with: inflater) == Self.hello)
    }

    @Test("§7.2.3.1: the \"Hello\" vector fragmented as in the RFC (f2 48 cd | c9 c9 07 00)")
    func helloInflatesFragmented() throws {
        let inflater = try MessageInflater(windowBits: 15, noContextTakeover: false)
        var output = ByteBuffer()
        try inflater.inflate(Self.buffer(Self.hex("f2 48 cd")), isFinal: false, into: &output, limit: 100)
        try inflater.inflate(Self.buffer(Self.hex("c9 c9 07 00")), isFinal: true, into: &output, limit: 100)
        #expect(Array(output.readableBytesView) == Self.hello)
    }

    @Test("§7.2.3.2: with context takeover the second \"Hello\" is f2 00 11 00 00, both ways")
    func contextTakeover() throws {
        let deflater = try MessageDeflater(windowBits: 15, noContextTakeover: false, level: 1, memoryLevel: 4)
        #expect(Self.compress(Self.hello, with: deflater) == Self.helloCompressed)
        #expect(Self.compress(Self.hello, with: deflater) == Self.hex("f2 00 11 00 00"))

        let inflater = try MessageInflater(windowBits: 15, noContextTakeover: false)
        #expect(try Self.inflate(Self.helloCompressed, with: inflater) == Self.hello)
        #expect(try Self.inflate(Self.hex("f2 00 11 00 00"), with: inflater) == Self.hello)
    }

    @Test("§7.2.3.2: without context takeover every \"Hello\" is f2 48 cd c9 c9 07 00")
    func noContextTakeover() throws {
        let deflater = try MessageDeflater(windowBits: 15, noContextTakeover: true, level: 1, memoryLevel: 4)
        for _ in 0..<3 {
            #expect(Self.compress(Self.hello, with: deflater) == Self.helloCompressed)
        }
        let inflater = try MessageInflater(windowBits: 15, noContextTakeover: true)
        for _ in 0..<3 {
            #expect(try Self.inflate(Self.helloCompressed, with: inflater) == Self.hello)
        }
    }

    @Test("An inflater without context takeover has forgotten the previous message")
    func noContextTakeoverInflaterForgets() throws {
        let inflater = try MessageInflater(windowBits: 15, noContextTakeover: true)
        #expect(try Self.inflate(Self.helloCompressed, with: inflater) == Self.hello)
        // f2 00 11 00 00 refers 5 bytes back, into a window that was reset.
        #expect(throws: PerMessageDeflateError.corruptData) {
            try Self.inflate(Self.hex("f2 00 11 00 00"), with: inflater)
        }
    }

    @Test("reset() on a deflater discards its context")
    func deflaterReset() throws {
        let deflater = try MessageDeflater(windowBits: 15, noContextTakeover: false, level: 1, memoryLevel: 4)
        #expect(Self.compress(Self.hello, with: deflater) == Self.helloCompressed)
        deflater.reset()
        #expect(Self.compress(Self.hello, with: deflater) == Self.helloCompressed)
    }

    @Test("§7.2.3.3: a stored (uncompressed) block inflates")
    func storedBlock() throws {
        let inflater = try MessageInflater(windowBits: 15, noContextTakeover: false)
        #expect(try Self.inflate(Self.hex("00 05 00 fa ff 48 65 6c 6c 6f 00"), with: inflater) == Self.hello)
    }

    @Test("§7.2.3.4: a BFINAL block inflates, and the window survives it")
    func finalBlock() throws {
        let inflater = try MessageInflater(windowBits: 15, noContextTakeover: false)
        #expect(try Self.inflate(Self.hex("f3 48 cd c9 c9 07 00 00"), with: inflater) == Self.hello)
        // The next message refers back to the first one (context takeover).
        #expect(try Self.inflate(Self.hex("f2 00 11 00 00"), with: inflater) == Self.hello)
        #expect(try Self.inflate(Self.helloCompressed, with: inflater) == Self.hello)
    }

    @Test("A message that ends with a BFINAL block and nothing after it is accepted")
    func bareFinalBlock() throws {
        let inflater = try MessageInflater(windowBits: 15, noContextTakeover: false)
        #expect(try Self.inflate(Self.hex("f3 48 cd c9 c9 07 00"), with: inflater) == Self.hello)
        #expect(try Self.inflate(Self.helloCompressed, with: inflater) == Self.hello)
    }

    @Test("Blocks may follow a BFINAL block in the same message")
    func blocksAfterFinalBlock() throws {
        let deflater = try MessageDeflater(windowBits: 15, noContextTakeover: false, level: 1, memoryLevel: 4)
        let world = Self.compress(Array(" world".utf8), with: deflater)
        let inflater = try MessageInflater(windowBits: 15, noContextTakeover: false)
        let payload = Self.hex("f3 48 cd c9 c9 07 00") + world
        #expect(try Self.inflate(payload, with: inflater) == Array("Hello world".utf8))
    }

    @Test("§7.2.3.5: two DEFLATE blocks in one message")
    func twoBlocks() throws {
        let inflater = try MessageInflater(windowBits: 15, noContextTakeover: false)
        let payload = Self.hex("f2 48 05 00 00 00 ff ff ca c9 c9 07 00")
        #expect(try Self.inflate(payload, with: inflater) == Self.hello)
    }

    @Test("§7.2.3.6: an empty message is the single byte 00, and inflates back to nothing")
    func emptyMessage() throws {
        for noContextTakeover in [false, true] {
            let deflater = try MessageDeflater(windowBits: 15, noContextTakeover: noContextTakeover, level: 1, memoryLevel: 4)
            let inflater = try MessageInflater(windowBits: 15, noContextTakeover: noContextTakeover)
            for message in [[], Self.hello, [], [], Self.hello] as [[UInt8]] {
                let compressed = Self.compress(message, with: deflater)
                if message.isEmpty {
                    #expect(compressed == [0x00])
                }
                #expect(try Self.inflate(compressed, with: inflater) == message)
            }
        }
    }

    @Test("An empty compressed payload is an empty message and leaves the stream usable")
    func emptyPayload() throws {
        let inflater = try MessageInflater(windowBits: 15, noContextTakeover: false)
        #expect(try Self.inflate(Self.helloCompressed, with: inflater) == Self.hello)
        #expect(try Self.inflate([], with: inflater) == [])
        #expect(try Self.inflate(Self.hex("f2 00 11 00 00"), with: inflater) == Self.hello)
    }

    // MARK: Round trips

    @Test(
        "Round trips of random and compressible data, inflated in random fragment splits",
        arguments: [0, 1, 2, 5, 100, 1000, 16_384, 100_000, 1 << 20]
    )
    func roundTrip(size: Int) throws {
        var generator = SeededGenerator(seed: UInt64(size) &+ 7)
        for noContextTakeover in [false, true] {
            let deflater = try MessageDeflater(windowBits: 15, noContextTakeover: noContextTakeover, level: 1, memoryLevel: 4)
            let inflater = try MessageInflater(windowBits: 15, noContextTakeover: noContextTakeover)
            let messages = [
                Self.randomBytes(size, using: &generator),
                Self.compressibleBytes(size, using: &generator),
                Self.compressibleBytes(size, using: &generator),
            ]
            for message in messages {
                let compressed = Self.compress(message, with: deflater)
                let inflated = try Self.inflateFragmented(compressed, with: inflater, using: &generator)
                #expect(inflated == message)
            }
        }
    }

    @Test("Round trips at every window size, levels and memory levels", arguments: 8...15)
    func roundTripWindows(windowBits: Int) throws {
        var generator = SeededGenerator(seed: UInt64(windowBits))
        for (level, memoryLevel) in [(Int32(0), Int32(1)), (1, 4), (6, 8), (9, 9)] {
            let deflater = try MessageDeflater(windowBits: windowBits, noContextTakeover: false, level: level, memoryLevel: memoryLevel)
            let inflater = try MessageInflater(windowBits: windowBits, noContextTakeover: false)
            for _ in 0..<4 {
                let message = Self.compressibleBytes(Int.random(in: 0...5000, using: &generator), using: &generator)
                let compressed = Self.compress(message, with: deflater)
                #expect(try Self.inflateFragmented(compressed, with: inflater, using: &generator) == message)
            }
        }
    }

    @Test("Window bits 8 emit literals only: no back-reference, so valid for a 256-byte window")
    func windowBitsEight() throws {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 10_000)
        let huffmanOnly = try MessageDeflater(windowBits: 8, noContextTakeover: false, level: 1, memoryLevel: 4)
        let withMatches = try MessageDeflater(windowBits: 9, noContextTakeover: false, level: 1, memoryLevel: 4)
        let literals = Self.compress(message, with: huffmanOnly)
        let matched = Self.compress(message, with: withMatches)
        // Every literal costs at least one bit; back-references would make this tiny.
        #expect(literals.count >= message.count / 8)
        #expect(matched.count < 200)
        // The second message does not refer to the first either.
        let again = Self.compress(message, with: huffmanOnly)
        #expect(again.count >= message.count / 8)
        let inflater = try MessageInflater(windowBits: 8, noContextTakeover: false)
        #expect(try Self.inflate(literals, with: inflater) == message)
        #expect(try Self.inflate(again, with: inflater) == message)
    }

    @Test("With context takeover, an inflater with a smaller window than the peer's fails")
    func windowIsEnforced() throws {
        var generator = SeededGenerator(seed: 99)
        let block = Self.randomBytes(1000, using: &generator)
        // The second message repeats the first: 1000 bytes back, so it needs at least 10 window bits.
        let deflater = try MessageDeflater(windowBits: 15, noContextTakeover: false, level: 6, memoryLevel: 8)
        let first = Self.compress(block, with: deflater)
        let second = Self.compress(block, with: deflater)
        #expect(second.count < 20)

        let small = try MessageInflater(windowBits: 9, noContextTakeover: false)
        #expect(try Self.inflate(first, with: small) == block)
        #expect(throws: PerMessageDeflateError.corruptData) {
            try Self.inflate(second, with: small)
        }
        let large = try MessageInflater(windowBits: 10, noContextTakeover: false)
        #expect(try Self.inflate(first, with: large) == block)
        #expect(try Self.inflate(second, with: large) == block)
    }

    @Test("The deflater output of many messages appends to one buffer")
    func appendsToOutput() throws {
        let deflater = try MessageDeflater(windowBits: 15, noContextTakeover: true, level: 1, memoryLevel: 4)
        var output = ByteBuffer(bytes: [0xAA])
        deflater.compress(Self.buffer(Self.hello), into: &output)
        #expect(Array(output.readableBytesView) == [0xAA] + Self.helloCompressed)
    }

    // MARK: Limits and bombs

    @Test("A 10 MiB bomb of zeros stops at the 1 MiB limit without growing past it")
    func bomb() throws {
        let deflater = try MessageDeflater(windowBits: 15, noContextTakeover: true, level: 9, memoryLevel: 9)
        let zeros = [UInt8](repeating: 0, count: 10 << 20)
        let bomb = Self.compress(zeros, with: deflater)
        #expect(bomb.count < 20_000)
        let limit = 1 << 20
        for fragmentSize in [bomb.count, 1000, 7] {
            let inflater = try MessageInflater(windowBits: 15, noContextTakeover: true)
            var output = ByteBuffer()
            var thrown: PerMessageDeflateError?
            var start = 0
            while start < bomb.count {
                let end = min(start + fragmentSize, bomb.count)
                do {
                    try inflater.inflate(
                        Self.buffer(Array(bomb[start..<end])),
                        isFinal: end == bomb.count,
                        into: &output,
                        limit: limit
                    )
                } catch {
                    thrown = error
                    break
                }
                start = end
            }
            #expect(thrown == .messageTooLarge)
            #expect(output.readableBytes <= limit)
            #expect(output.capacity <= limit)
        }
    }

    @Test("A message of exactly the limit passes; one byte more is too large")
    func exactLimit() throws {
        var generator = SeededGenerator(seed: 5)
        let message = Self.compressibleBytes(50_000, using: &generator)
        let deflater = try MessageDeflater(windowBits: 15, noContextTakeover: true, level: 1, memoryLevel: 4)
        let compressed = Self.compress(message, with: deflater)

        let inflater = try MessageInflater(windowBits: 15, noContextTakeover: true)
        #expect(try Self.inflate(compressed, with: inflater, limit: message.count) == message)
        #expect(throws: PerMessageDeflateError.messageTooLarge) {
            try Self.inflate(compressed, with: inflater, limit: message.count - 1)
        }
        inflater.reset()
        #expect(try Self.inflateFragmented(compressed, with: inflater, using: &generator, limit: message.count) == message)
    }

    @Test("The limit counts everything already in the output buffer")
    func limitCountsOutput() throws {
        let inflater = try MessageInflater(windowBits: 15, noContextTakeover: true)
        var output = ByteBuffer(bytes: [1, 2, 3])
        #expect(throws: PerMessageDeflateError.messageTooLarge) {
            try inflater.inflate(Self.buffer(Self.helloCompressed), isFinal: true, into: &output, limit: 7)
        }
        #expect(output.readableBytes <= 7)
        inflater.reset()
        var fits = ByteBuffer(bytes: [1, 2, 3])
        try inflater.inflate(Self.buffer(Self.helloCompressed), isFinal: true, into: &fits, limit: 8)
        #expect(Array(fits.readableBytesView) == [1, 2, 3] + Self.hello)
    }

    // MARK: Corrupt data

    @Test(
        "Corrupt data throws corruptData",
        arguments: [
            "ff ff ff ff ff",  // a dynamic block with impossible code lengths
            "06",  // block type 11 (reserved)
            "07 00",  // final block of reserved type
            "00 05 00 00 00 48",  // a stored block whose NLEN is not the complement of LEN
        ]
    )
    func corrupt(hex: String) throws {
        let inflater = try MessageInflater(windowBits: 15, noContextTakeover: false)
        #expect(throws: PerMessageDeflateError.corruptData) {
            try Self.inflate(Self.hex(hex), with: inflater)
        }
    }

    @Test("A truncated message (not ending on a block boundary) throws corruptData")
    func truncated() throws {
        var generator = SeededGenerator(seed: 11)
        let message = Self.compressibleBytes(10_000, using: &generator)
        let deflater = try MessageDeflater(windowBits: 15, noContextTakeover: true, level: 1, memoryLevel: 4)
        let compressed = Self.compress(message, with: deflater)
        let inflater = try MessageInflater(windowBits: 15, noContextTakeover: true)
        #expect(throws: PerMessageDeflateError.corruptData) {
            try Self.inflate(Array(compressed.prefix(compressed.count / 2)), with: inflater)
        }
    }

    @Test("Window bits outside 8...15 are refused", arguments: [0, 7, 16, -15])
    func invalidWindowBits(windowBits: Int) {
        #expect(throws: PerMessageDeflateError.zlibFailure(-2)) {
            try MessageDeflater(windowBits: windowBits, noContextTakeover: false, level: 1, memoryLevel: 4)
        }
        #expect(throws: PerMessageDeflateError.zlibFailure(-2)) {
            try MessageInflater(windowBits: windowBits, noContextTakeover: false)
        }
    }

    @Test("An invalid level or memory level is reported by zlib")
    func invalidLevels() {
        #expect(throws: PerMessageDeflateError.zlibFailure(-2)) {
            try MessageDeflater(windowBits: 15, noContextTakeover: false, level: 10, memoryLevel: 4)
        }
        #expect(throws: PerMessageDeflateError.zlibFailure(-2)) {
            try MessageDeflater(windowBits: 15, noContextTakeover: false, level: 1, memoryLevel: 0)
        }
    }
}
