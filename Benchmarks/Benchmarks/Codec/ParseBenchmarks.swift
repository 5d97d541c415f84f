// 3. Inbound path of a server connection: parse headers, unmask, validate UTF-8, assemble messages.
import Benchmark
import NIOCore
import WebSocket

func registerParseBenchmarks() {
    let frameCount = 10_000
    // 10 000 masked client text frames with 16-byte payloads (22 bytes each on the wire), each
    // with its own key, encoded once by the client-side encoder into one contiguous buffer.
    let wire: ByteBuffer = {
        var generator = SeededGenerator(seed: 20)
        let allocator = ByteBufferAllocator()
        var wire = allocator.buffer(capacity: frameCount * 22)
        for index in 0..<frameCount {
            var payload = allocator.buffer(capacity: 16)
            payload.writeString(#"{"v":\#(1000 + index % 9000),"k":0}"#)  // 16 bytes
            precondition(payload.readableBytes == 16)
            var frame = FrameEncoder.clientFrame(opcode: .text, payload: payload,
                                                 key: .random(using: &generator))
            wire.writeBuffer(&frame)
        }
        precondition(wire.readableBytes == frameCount * 22)
        return wire
    }()

    // One long-lived server connection, fed the whole buffer each iteration (as if one read
    // returned it), drained of all its events. frames/s = 10 000 / wall clock per iteration;
    // mallocs per frame = mallocs per iteration / 10 000.
    var connection = WebSocketConnection(role: .server)
    Benchmark("Parse+assemble small frames (10k x 16 B text)") { benchmark in
        for _ in benchmark.scaledIterations {
            // Work on a local copy: the captured variable lives in a box whose every access is
            // checked for exclusivity at run time, which would add ~4 % of benchmark overhead.
            var server = connection
            var input = wire
            server.receive(&input)
            var events = 0
            while let event = server.nextEvent() {
                blackHole(event)
                events &+= 1
            }
            if events != frameCount || server.closeState != .open {
                benchmark.error("expected \(frameCount) messages, got \(events) (\(String(describing: server.failure)))")
            }
            connection = server
        }
    }
}
