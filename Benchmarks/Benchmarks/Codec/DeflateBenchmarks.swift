// 4. permessage-deflate (RFC 7692) on a 16 KiB JSON chat message, with the project's default
//    settings (level 1, memory level 4, 15 window bits, no context takeover).
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Benchmark
import NIOCore
import WebSocket

func registerDeflateBenchmarks() {
    let settings = PerMessageDeflateConfiguration.default
    let allocator = ByteBufferAllocator()
    let text = Fixtures.chatJSON(size: 16 * 1024, seed: 3)
    var message = allocator.buffer(capacity: text.count)
    message.writeBytes(text)

    // The codecs themselves: compress into a reused buffer, inflate into another one.
    // MB/s = 16 384 bytes (uncompressed) / wall clock per iteration.
    let deflater = try! MessageDeflater(windowBits: 15, noContextTakeover: settings.serverNoContextTakeover,
                                        level: settings.compressionLevel, memoryLevel: settings.memoryLevel)
    let inflater = try! MessageInflater(windowBits: 15, noContextTakeover: settings.serverNoContextTakeover)
    var compressed = allocator.buffer(capacity: text.count)
    var inflated = allocator.buffer(capacity: 2 * text.count)

    // Check the round trip once before measuring anything.
    deflater.compress(message, into: &compressed)
    try! inflater.inflate(compressed, isFinal: true, into: &inflated, limit: 1 << 20)
    precondition(inflated == message, "deflate round trip changed the message")
    let compressedCopy = compressed
    if getenv("CODEC_FIXTURE_STATS") != nil {
        printFixtureReport("Deflate: 16384 bytes -> \(compressed.readableBytes) bytes compressed\n")
    }

    Benchmark("Deflate round trip 16 KiB text") { benchmark in
        for _ in benchmark.scaledIterations {
            compressed.clear()
            deflater.compress(message, into: &compressed)
            inflated.clear()
            do {
                try inflater.inflate(compressed, isFinal: true, into: &inflated, limit: 1 << 20)
            } catch {
                benchmark.error("inflate failed: \(error)")
            }
            blackHole(inflated.readableBytes)
        }
    }

    // Each direction on its own (information).
    Benchmark("Deflate 16 KiB text (compress only)") { benchmark in
        for _ in benchmark.scaledIterations {
            compressed.clear()
            deflater.compress(message, into: &compressed)
            blackHole(compressed.readableBytes)
        }
    }
    Benchmark("Deflate 16 KiB text (inflate only)") { benchmark in
        for _ in benchmark.scaledIterations {
            inflated.clear()
            do {
                try inflater.inflate(compressedCopy, isFinal: true, into: &inflated, limit: 1 << 20)
            } catch {
                benchmark.error("inflate failed: \(error)")
            }
            blackHole(inflated.readableBytes)
        }
    }

    // The whole path through two connections that negotiated permessage-deflate: the client
    // compresses, masks and frames the message; the server unmasks, inflates into a fresh message
    // buffer and validates the UTF-8, then hands out the text event.
    let parameters = PerMessageDeflateParameters(serverNoContextTakeover: settings.serverNoContextTakeover,
                                                 clientNoContextTakeover: settings.clientNoContextTakeover)
    var client = WebSocketConnection(role: .client, compression: parameters)
    var server = WebSocketConnection(role: .server, compression: parameters)
    Benchmark("Deflate round trip 16 KiB text (client->server connection pair)") { benchmark in
        for _ in benchmark.scaledIterations {
            guard var frame = client.send(.text, payload: message) else {
                benchmark.error("client refused to send")
                return
            }
            server.receive(&frame)
            guard case .text(let received)? = server.nextEvent(), received.readableBytes == text.count else {
                benchmark.error("server did not deliver the message (\(String(describing: server.failure)))")
                return
            }
            blackHole(received)
        }
    }
}
