// 1. Masking (RFC 6455 §5.3): XOR with the 4-byte key, a SIMD vector at a time.
import Benchmark
import WebSocket

func registerMaskingBenchmarks() {
    let size = Fixtures.mebibyte
    let key = WebSocketMaskKey(0x37, 0xFA, 0x21, 0x3D)

    // In place, as a whole 1 MiB payload: GB/s = 1 MiB / wall clock per iteration.
    let inPlace = Fixtures.mutableCopy(of: Fixtures.chatJSON(size: size, seed: 10))
    Benchmark("Unmask 1 MiB") { benchmark in
        for _ in benchmark.scaledIterations {
            // Masking is its own inverse: the buffer alternates between masked and clear.
            Masking.apply(key: key, phase: 0, to: inPlace.baseAddress!, count: inPlace.count)
            blackHole(inPlace.baseAddress!)
        }
    }

    // What the connection does with inbound payloads: unmask from the input buffer into the
    // message buffer (read 1 MiB, write 1 MiB).
    let source = Fixtures.mutableCopy(of: Fixtures.chatJSON(size: size, seed: 11))
    let destination = Fixtures.mutableCopy(of: [UInt8](repeating: 0, count: size))
    Benchmark("Unmask 1 MiB (copy to another buffer)") { benchmark in
        for _ in benchmark.scaledIterations {
            Masking.transform(key: key, phase: 1, from: UnsafeRawPointer(source.baseAddress!),
                              to: destination.baseAddress!, count: size)
            blackHole(destination.baseAddress!)
        }
    }
}
