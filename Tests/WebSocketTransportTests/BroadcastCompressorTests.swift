import NIOCore
import Testing
import WebSocket
import WebSocketTransport

@Suite("Broadcasts compressed once")
struct BroadcastCompressorTests {
    private static let parameters = PerMessageDeflateParameters(serverNoContextTakeover: true, clientNoContextTakeover: true)

    /// A client that negotiated permessage-deflate decodes one frame.
    private func decode(_ frame: ByteBuffer) -> WebSocketEvent? {
        var client = WebSocketConnection(role: .client, compression: Self.parameters)
        var bytes = frame
        client.receive(&bytes)
        return client.nextEvent()
    }

    @Test("One compressed frame decodes to the same text on every fresh client, many times over")
    func compressedFrameIsSelfContained() throws {
        let compressor = BroadcastCompressor(settings: .default)
        for round in 0..<5 {
            let text = String(repeating: #"{"type":"line","seq":\#(round),"textNative":"Un café con leche, por favor."}"#, count: 4)
            let frame = PreparedFrame(text: text, compressor: compressor)
            let compressed = try #require(frame.compressedBytes)
            #expect(compressed.readableBytes < frame.bytes.readableBytes)
            #expect(((compressed.getInteger(at: compressed.readerIndex) as UInt8?) ?? 0) & 0x40 != 0, "RSV1 set")
            for _ in 0..<3 {
                #expect(decode(compressed) == .text(ByteBuffer(string: text)))
            }
            #expect(decode(frame.bytes) == .text(ByteBuffer(string: text)))
        }
    }

    @Test("Small messages and a disabled compressor give no compressed variant")
    func smallOrDisabled() {
        #expect(PreparedFrame(text: "short", compressor: BroadcastCompressor(settings: .default)).compressedBytes == nil)
        var off = PerMessageDeflateConfiguration.default
        off.isEnabled = false
        #expect(PreparedFrame(text: String(repeating: "a", count: 1000), compressor: BroadcastCompressor(settings: off)).compressedBytes == nil)
    }

    @Test("Made on demand, once, for every header size; shared by later recipients", arguments: [200, 5_000, 70_000])
    func madeOnDemandOnce(length: Int) throws {
        let text = String(repeating: "Bonjour, j'ai une réservation. ", count: length / 31 + 1)
        let frame = PreparedFrame(text: text, compressor: BroadcastCompressor(settings: .default))
        let first = try #require(frame.compressedBytes)
        let second = try #require(frame.compressedBytes)
        #expect(first == second)
        #expect(decode(first) == .text(ByteBuffer(string: text)))
        #expect(decode(frame.bytes) == .text(ByteBuffer(string: text)))
        // Copies of the frame share the one compressed variant.
        let copy = frame
        #expect(copy.compressedBytes == first)
    }
}
