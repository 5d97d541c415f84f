import NIOCore
import Testing
@testable import WebSocket

/// Random split points and random fragmentations must give the same messages.
@Suite struct WebSocketConnectionPropertyTests {
    /// A random message: text (valid UTF-8 with multi-byte scalars) or binary.
    static func randomMessage(_ rng: inout SeededGenerator) -> (WebSocketOpcode, [UInt8]) {
        let length = [0, 1, 5, 125, 126, 127, 300, 65535, 65536, 70000].randomElement(using: &rng) ?? 10
        if Bool.random(using: &rng) {
            let alphabet: [Character] = ["a", "Z", " ", "é", "ß", "中", "文", "😀", "\u{10FFFF}", "\u{7F}"]
            var text = ""
            while text.utf8.count < length { text.append(alphabet.randomElement(using: &rng) ?? "a") }
            return (.text, Array(text.utf8))
        }
        return (.binary, (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) })
    }

    /// Splits a message into 1...n fragments at random points, masked with random keys.
    static func fragmentedFrames(_ opcode: WebSocketOpcode, _ payload: [UInt8], _ rng: inout SeededGenerator) -> [UInt8] {
        let pieces = Int.random(in: 1...5, using: &rng)
        var cuts = (0..<(pieces - 1)).map { _ in Int.random(in: 0...payload.count, using: &rng) }.sorted()
        cuts.insert(0, at: 0)
        cuts.append(payload.count)
        var bytes: [UInt8] = []
        for index in 0..<(cuts.count - 1) {
            let part = Array(payload[cuts[index]..<cuts[index + 1]])
            let key = WebSocketMaskKey.random(using: &rng)
            bytes += clientFrameBytes(index == 0 ? opcode : .continuation, part, fin: index == cuts.count - 2, key: key)
            if Int.random(in: 0..<4, using: &rng) == 0 {
                bytes += clientFrameBytes(.ping, Array("p\(index)".utf8), key: key)
            }
        }
        return bytes
    }

    /// Found by fuzzing (Fuzzing/, target connection): a compressed text message whose DEFLATE stream
    /// first inflates to invalid UTF-8 and then turns corrupt, or grows past the message limit, fails
    /// with 1007 invalid UTF-8 however the frame is split. It used to depend on the reads: in one read
    /// the inflate error came first (1007 invalid compressed data, or 1009), in small reads the UTF-8
    /// check did.
    @Test(arguments: [[Int.max], [1], [5], [8, 3]] as [[Int]])
    func compressedTextFailsTheSameWayHoweverItIsSplit(chunkSizes: [Int]) {
        // A stored block holding 0xFF (never valid UTF-8), then a block of the reserved type 3.
        let corrupt: [UInt8] = [0x00, 0x01, 0x00, 0xFE, 0xFF, 0xFF, 0x07]
        // A stored block holding 0xFF, then a stored block of 100 bytes: past a 16-byte limit.
        let tooLarge: [UInt8] = [0x00, 0x01, 0x00, 0xFE, 0xFF, 0xFF, 0x00, 0x64, 0x00, 0x9B, 0xFF]
            + [UInt8](repeating: 0x61, count: 100)
        for payload in [corrupt, tooLarge] {
            var server = WebSocketConnection(role: .server,
                                             configuration: .init(maxMessageSize: 16, maxFrameSize: 1024),
                                             compression: PerMessageDeflateParameters())
            let events = feed(&server, clientFrameBytes(.text, payload, rsv1: true), chunkSizes: chunkSizes)
            #expect(events == [.failed(.invalidUTF8)], "payload of \(payload.count) bytes in chunks \(chunkSizes)")
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func randomSplitsAndFragmentationsGiveTheSameMessages(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        var messages: [(WebSocketOpcode, [UInt8])] = []
        var wire: [UInt8] = []
        for _ in 0..<12 {
            let message = Self.randomMessage(&rng)
            messages.append(message)
            wire += Self.fragmentedFrames(message.0, message.1, &rng)
        }
        let chunking = [1, 2, 3, 7, 13, 64, 1000, 4096].shuffled(using: &rng)
        var server = WebSocketConnection(role: .server, configuration: .init(maxMessageSize: 1 << 20))
        let events = feed(&server, wire, chunkSizes: chunking)
        let received = events.compactMap { event -> (WebSocketOpcode, [UInt8])? in
            switch event {
            case .text(let b): return (.text, Array(b.readableBytesView))
            case .binary(let b): return (.binary, Array(b.readableBytesView))
            default: return nil
            }
        }
        #expect(received.count == messages.count)
        for (got, want) in zip(received, messages) {
            #expect(got.0 == want.0)
            #expect(got.1 == want.1)
        }
        #expect(!events.contains { if case .failed = $0 { return true } else { return false } })
    }

    @Test(arguments: [11, 12, 13] as [UInt64])
    func encodeThenParseRoundTrips(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        var client = WebSocketConnection(role: .client)
        var server = WebSocketConnection(role: .server)
        for _ in 0..<20 {
            let (opcode, payload) = Self.randomMessage(&rng)
            guard let toServer = client.send(opcode, payload: ByteBuffer(bytes: payload)) else {
                Issue.record("client refused to send"); return
            }
            let atServer = feed(&server, Array(toServer.readableBytesView), chunkSizes: [Int.random(in: 1...50, using: &rng)])
            #expect(atServer.map(\.messageBytes) == [payload])
            guard let toClient = server.send(opcode, payload: ByteBuffer(bytes: payload)) else {
                Issue.record("server refused to send"); return
            }
            let atClient = feed(&client, Array(toClient.readableBytesView))
            #expect(atClient.map(\.messageBytes) == [payload])
        }
    }

    @Test func maskingMatchesBytewiseReference() {
        var rng = SeededGenerator(seed: 99)
        for length in [0, 1, 3, 4, 15, 16, 17, 63, 64, 65, 200, 1025] {
            for phase in 0..<4 {
                let key = WebSocketMaskKey.random(using: &rng)
                let data = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
                var fast = data
                Masking.apply(key: key, phase: phase, to: &fast)
                let slow = data.enumerated().map { $0.element ^ key[$0.offset + phase] }
                #expect(fast == slow, "length \(length) phase \(phase)")
            }
        }
    }
}
