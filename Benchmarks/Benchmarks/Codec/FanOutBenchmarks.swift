// 5. Broadcast: encode a server frame once and hand the same bytes to every recipient.
import Benchmark
import NIOCore
import WebSocket

func registerFanOutBenchmarks() {
    let allocator = ByteBufferAllocator()
    let headroom = WebSocketConfiguration.default.messageHeadroom
    // A 100-byte chat event (padded with JSON whitespace).
    var text = Array(#"{"type":"message","from":"user_42","seq":1234,"text":"¿dónde está la estación?"}"#.utf8)
    while text.count < 100 { text.append(UInt8(ascii: " ")) }
    precondition(text.count == 100)

    // A 100-byte message as the connection delivers it: 14 bytes of headroom before the reader
    // index, so FrameEncoder.serverFrame can write the header in place.
    var delivered = allocator.buffer(capacity: headroom + text.count)
    delivered.moveWriterIndex(forwardBy: headroom)
    delivered.moveReaderIndex(forwardBy: headroom)
    delivered.writeBytes(text)
    // The same message without headroom (the encoder must copy it behind a new header).
    var plain = allocator.buffer(capacity: text.count)
    plain.writeBytes(text)

    // Each recipient's outbound slot; a broadcast stores the frame in every slot (a retain of
    // the shared storage, no copy). Capacity is fixed up front, so the array never grows.
    let maximumRecipients = 100
    var outbound = [ByteBuffer](repeating: ByteBuffer(), count: maximumRecipients)

    func register(_ name: String, payload: ByteBuffer, recipients: Int) {
        Benchmark(name, configuration: .init(scalingFactor: .kilo)) { benchmark in
            for _ in benchmark.scaledIterations {
                let frame = FrameEncoder.serverFrame(opcode: .text, payload: payload)
                for index in 0..<recipients {
                    outbound[index] = frame
                }
                blackHole(outbound[recipients - 1].readableBytes)
            }
            if outbound[0].readableBytes != 2 + text.count {
                benchmark.error("unexpected frame length \(outbound[0].readableBytes)")
            }
        }
    }

    // mallocs per extra recipient = (mallocs at 100 - mallocs at 1) / 99.
    register("Encode once, fan out to 1 recipient", payload: delivered, recipients: 1)
    register("Encode once, fan out to 100 recipients", payload: delivered, recipients: 100)
    // Information: the encoder's fallback when the payload has no headroom.
    register("Encode once (payload without headroom), fan out to 1 recipient", payload: plain, recipients: 1)

    // Information: a message built fresh for each broadcast and referenced by nobody else (2 mallocs
    // for the message itself). If the header went into the headroom in place, this would total 2.
    Benchmark("Encode once (fresh unshared payload), fan out to 1 recipient",
              configuration: .init(scalingFactor: .kilo)) { benchmark in
        for _ in benchmark.scaledIterations {
            var payload = allocator.buffer(capacity: headroom + text.count)
            payload.moveWriterIndex(forwardBy: headroom)
            payload.moveReaderIndex(forwardBy: headroom)
            payload.writeBytes(text)
            outbound[0] = FrameEncoder.serverFrame(opcode: .text, payload: payload)
            blackHole(outbound[0].readableBytes)
        }
    }
}
