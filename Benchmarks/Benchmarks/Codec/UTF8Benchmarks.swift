// 2. UTF-8 validation of text messages (RFC 3629), ASCII fast path 32 bytes at a time.
import Benchmark
import WebSocket

func registerUTF8Benchmarks() {
    let size = Fixtures.mebibyte

    func register(_ name: String, _ bytes: [UInt8]) {
        let buffer = Fixtures.mutableCopy(of: bytes)
        var check = UTF8Validator()
        precondition(check.validate(UnsafeRawPointer(buffer.baseAddress!), count: buffer.count) && check.isComplete,
                     "\(name): fixture is not valid UTF-8")
        Benchmark(name) { benchmark in
            for _ in benchmark.scaledIterations {
                var validator = UTF8Validator()
                let valid = validator.validate(UnsafeRawPointer(buffer.baseAddress!), count: buffer.count)
                blackHole(valid && validator.isComplete)
            }
        }
    }

    // JSON chat events, 1.7 % non-ASCII bytes, one multibyte character per ~129 bytes.
    register("UTF-8 validate ASCII-heavy 1 MiB", Fixtures.chatJSON(size: size, seed: 1))
    // No ASCII at all: 2-, 3- and 4-byte characters (information only; no target).
    register("UTF-8 validate multibyte 1 MiB", Fixtures.multibyteText(size: size, seed: 2))
}
