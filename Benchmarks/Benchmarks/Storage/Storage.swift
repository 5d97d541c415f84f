// Storage benchmarks of SessionHub (modules `HubStorage` and `HubDomain`), on real SQLite files in
// a temporary directory, with the store wired as `sessionhub serve` wires it (WAL,
// synchronous=NORMAL, background checkpointer, the journal sharing the store's connection).
//
// 1. Session-end write: `SQLiteStore.save(_ EndedSession)` (SessionEndBenchmarks.swift).
// 2. Journal append latency, call to durable, alone and with 50 concurrent sessions, plus the
//    throughput with 50 sessions (JournalBenchmarks.swift).
// 3. History listing with 1,000,000 stored sessions: `getSessions(userId:limit:before:)`, first and
//    deep page (HistoryBenchmarks.swift; the database is built once, see HistoryFixture.swift).
//
// Wall clock is in nanoseconds; the journal's concurrent runs add custom metrics (one latency
// sample per append). README.md has the results and compares them with DESIGN.md's targets.
import Benchmark
import Foundation
import Synchronization

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput],
        timeUnits: .nanoseconds,
        units: [.throughput: .count],
        warmupIterations: 20,
        scalingFactor: .one,
        maxDuration: .seconds(4),
        maxIterations: 5_000
    )

    registerSessionEndBenchmarks()
    registerJournalBenchmarks()
    registerHistoryBenchmarks()
}

/// Notes about the fixtures, on standard error (not part of the results table).
enum StorageFixtureReport {
    private static let shown = Mutex<Set<String>>([])

    static func note(_ line: String) {
        FileHandle.standardError.write(Data(("[storage fixture] " + line + "\n").utf8))
    }

    static func noteOnce(_ key: String, _ line: () -> String) {
        let first = shown.withLock { $0.insert(key).inserted }
        if first { note(line()) }
    }
}
