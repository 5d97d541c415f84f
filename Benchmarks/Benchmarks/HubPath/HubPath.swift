// The hub's own path for one `say` in a 6-player shared session, in process and without sockets
// (modules `HubProtocol`, `HubDomain`, `WebSocketTransport`):
//
//   client JSON text → `ClientMessageDecoder` → the connection's rate limits → `LiveSession.say`
//   (validate, record, number) → `InMemorySessionJournal.append` → the broadcast encoded and
//   framed once (`ServerMessageEncoder.broadcast` + `PreparedFrame`, as the server's
//   `FrameEventEncoder` does) → delivered to the 6 members through counting `ParticipantLink`s.
//
// One iteration is one `say`, which makes 6 deliveries. Wall clock and mallocs are per say; the
// custom metric `ns per delivery` is the same measured time divided by 6. README.md ("HubPath
// benchmark") has the results and divides the malloc counts.
//
// SayBenchmarks.swift registers the whole path; PartBenchmarks.swift its two codec steps alone
// (for information). SayPath.swift holds the sessions, CountingLink.swift the links and
// BroadcastEncoder.swift the encoder.
import Benchmark

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        // Nanoseconds and exact malloc counts, so per-delivery figures can be computed exactly.
        timeUnits: .nanoseconds,
        units: [.mallocCountTotal: .count, .throughput: .count],
        warmupIterations: 200,
        scalingFactor: .one,
        maxDuration: .seconds(4),
        maxIterations: 100_000
    )

    registerSayBenchmarks()
    registerPartBenchmarks()
}
