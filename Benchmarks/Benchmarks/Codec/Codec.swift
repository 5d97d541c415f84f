// Micro-benchmarks of the SessionHub WebSocket codec (module `WebSocket`).
//
// Every benchmark reports wall clock, throughput (iterations per second) and malloc counts per
// iteration; README.md converts them into the DESIGN units (GB/s, M frames/s, mallocs per frame,
// MB/s). Fixtures are built once, when the benchmarks are registered, so only the codec work is
// measured. Each group lives in its own file.
import Benchmark

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        // Nanoseconds and exact malloc counts (nothing rounded to µs or K), so GB/s, frames/s and
        // mallocs per frame can be computed from the table.
        timeUnits: .nanoseconds,
        units: [.mallocCountTotal: .count, .throughput: .count],
        warmupIterations: 10,
        scalingFactor: .one,
        maxDuration: .seconds(2),
        maxIterations: 20_000
    )
    Fixtures.reportIfRequested()

    registerMaskingBenchmarks()
    registerUTF8Benchmarks()
    registerParseBenchmarks()
    registerDeflateBenchmarks()
    registerFanOutBenchmarks()
}
