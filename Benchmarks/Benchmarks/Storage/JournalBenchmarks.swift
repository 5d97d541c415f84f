// 2. Journal: how long `SQLiteJournal.append` takes from the call to "durable" (the commit of the
// group-commit transaction that holds it). A broadcast waits for its append before delivery, so
// this is what the journal adds to fan-out.
import Benchmark
import Foundation
import HubDomain
import HubStorage

enum JournalMetric {
    /// One append, call to return, in nanoseconds (one sample per append).
    static let latency = BenchmarkMetric.custom("append latency (ns)")
    /// Appends completed per second over one iteration (one sample per iteration).
    static let throughput = BenchmarkMetric.custom("appends/s", polarity: .prefersLarger)
    /// Appends per group commit over one iteration (one sample per iteration).
    static let batch = BenchmarkMetric.custom("appends per commit", polarity: .prefersLarger)
    /// Process CPU time (every thread: sessions, committer, checkpointer) per append over one
    /// iteration, in nanoseconds (one sample per iteration).
    static let cpu = BenchmarkMetric.custom("CPU per append (ns)")

    static let all: [BenchmarkMetric] = [.wallClock, latency, throughput, batch, cpu]
    static var units: [BenchmarkMetric: BenchmarkUnits] {
        [latency: .count, throughput: .count, batch: .count, cpu: .count]
    }
}

/// A journal on a fresh file, wired as the server wires it (sharing the store's database).
final class JournalCase {
    var target: StoreUnderTest?
    var generator = SeededGenerator(seed: 42)
    var seq = 0
    var sessionId = ""

    var journal: SQLiteJournal { target!.journal }

    func open(_ name: String, commitInterval: Duration = .milliseconds(2)) throws {
        target = try StoreUnderTest(name: name, commitInterval: commitInterval)
        sessionId = generator.sessionId()
    }

    func close() {
        target?.close()
        target = nil
    }

    func nextEntry() -> JournalEntry {
        seq += 1
        return SessionFixture.lineEntry(sessionId: sessionId, seq: seq, speaker: "user-host",
                                        at: Clock.mon23 + Int64(seq) * 1_000)
    }
}

/// `sessions` concurrent sessions, each appending `appendsPerSession` entries in `seq` order with
/// one append in flight (as `LiveSession.commit` does). With `period` nil each session appends again
/// as soon as its previous append returned (closed loop: as fast as the journal lets it); with a
/// period, session `s` calls append at `start + phase(s) + k * period` (or at once if it is behind).
/// Returns every append's latency (ns) and the wall time of the whole run (ns).
func runSessions(journal: SQLiteJournal, sessionIds: [String], appendsPerSession: Int,
                 period: Duration?) async throws -> (latencies: [Int], elapsed: Int) {
    let clock = ContinuousClock()
    let start = clock.now + .microseconds(200)
    let begin = nowNanoseconds()
    let latencies = try await withThrowingTaskGroup(of: [Int].self) { group in
        for (index, sessionId) in sessionIds.enumerated() {
            let entries = (1...appendsPerSession).map { seq in
                SessionFixture.lineEntry(sessionId: sessionId, seq: seq, speaker: "user-\(index)",
                                         at: Clock.mon23 + Int64(seq) * 1_000)
            }
            group.addTask {
                var latencies: [Int] = []
                latencies.reserveCapacity(entries.count)
                // Spread the sessions' phases evenly over one period.
                let phase = period.map { $0 * Double(index) / Double(sessionIds.count) } ?? .zero
                for (k, entry) in entries.enumerated() {
                    if let period {
                        let due = start + phase + period * k
                        if clock.now < due { try await Task.sleep(until: due, tolerance: .microseconds(1), clock: clock) }
                    }
                    let before = nowNanoseconds()
                    try await journal.append(entry)
                    latencies.append(Int(nowNanoseconds() - before))
                }
                return latencies
            }
        }
        var all: [Int] = []
        for try await latencies in group { all += latencies }
        return all
    }
    return (latencies, Int(nowNanoseconds() - begin))
}

func registerJournalBenchmarks() {
    // One session appending alone to an idle journal: the previous commit was more than the commit
    // interval (2 ms) ago, so the append is committed at once. Lines of one session are seconds
    // apart, so this is the common case.
    let idle = JournalCase()
    Benchmark("Journal append: 1 session alone, idle journal (3 ms pause between appends)",
              configuration: .init(warmupIterations: 20, maxDuration: .seconds(5), maxIterations: 1_000)) { benchmark in
        let entry = idle.nextEntry()
        try await Task.sleep(for: .milliseconds(3))
        benchmark.startMeasurement()
        try await idle.journal.append(entry)
        benchmark.stopMeasurement()
    } setup: {
        try idle.open("journal-idle")
    } teardown: {
        idle.close()
    }

    // The same session appending back to back (the next append as soon as the previous one
    // returned): every append after the first waits for the commit interval since the last commit.
    let busy = JournalCase()
    Benchmark("Journal append: 1 session alone, back to back",
              configuration: .init(warmupIterations: 20, maxDuration: .seconds(4), maxIterations: 1_500)) { benchmark in
        try await busy.journal.append(busy.nextEntry())
    } setup: {
        try busy.open("journal-busy")
    } teardown: {
        busy.close()
    }

    // N concurrent sessions. Each iteration: N fresh sessions, 20 appends each; afterwards
    // (not measured) their journals are removed, as sessions that end do.
    func registerConcurrent(_ name: String, sessions: Int, appendsPerSession: Int, period: Duration?,
                            commitInterval: Duration = .milliseconds(2), maxIterations: Int, seed: UInt64) {
        let concurrent = JournalCase()
        concurrent.generator = SeededGenerator(seed: seed)
        Benchmark(name, configuration: .init(metrics: JournalMetric.all, units: JournalMetric.units,
                                             warmupIterations: 3, maxDuration: .seconds(6),
                                             maxIterations: maxIterations)) { benchmark in
            let journal = concurrent.journal
            let sessionIds = (0..<sessions).map { _ in concurrent.generator.sessionId() }
            let commitsBefore = journal.commitCount
            let cpuBefore = processCPUNanoseconds()
            benchmark.startMeasurement()
            let run = try await runSessions(journal: journal, sessionIds: sessionIds,
                                            appendsPerSession: appendsPerSession, period: period)
            benchmark.stopMeasurement()
            let cpu = processCPUNanoseconds() - cpuBefore
            let commits = max(1, journal.commitCount - commitsBefore)
            benchmark.measurement(JournalMetric.cpu, cpu / run.latencies.count)
            for latency in run.latencies { benchmark.measurement(JournalMetric.latency, latency) }
            benchmark.measurement(JournalMetric.throughput, Int(Double(run.latencies.count) * 1e9 / Double(run.elapsed)))
            benchmark.measurement(JournalMetric.batch, run.latencies.count / commits)
            for sessionId in sessionIds { try journal.remove(sessionId: sessionId) }
        } setup: {
            try concurrent.open("journal-\(sessions)-\(period == nil ? "closed" : "paced")-\(seed)",
                                commitInterval: commitInterval)
        } teardown: {
            concurrent.close()
        }
    }

    // Closed loop: 50 sessions appending as fast as the journal lets them. Throughput = the
    // journal's capacity with 50 writers; latency = one commit interval plus one commit.
    registerConcurrent("Journal append: 50 sessions concurrently, back to back (closed loop)",
                       sessions: 50, appendsPerSession: 20, period: nil, maxIterations: 150, seed: 50)
    // Open loop: 50 sessions broadcasting 100 times a second each (5,000 appends/s offered, phases
    // spread evenly), like a hub under steady fan-out load. Latency = wait for the next commit plus
    // the commit.
    registerConcurrent("Journal append: 50 sessions concurrently, 100 appends/s each (5,000/s offered)",
                       sessions: 50, appendsPerSession: 20, period: .milliseconds(10), maxIterations: 30, seed: 51)

    // For tuning, not a configuration the server uses: the same two loads with a shorter commit
    // interval (`SQLiteJournal(database:commitInterval:)`). With 0 an append waits only for the
    // commit that is running, if any, then for its own (plain group commit, no timer).
    registerConcurrent("Journal append: 50 sessions concurrently, back to back (closed loop), commitInterval 0",
                       sessions: 50, appendsPerSession: 20, period: nil, commitInterval: .zero, maxIterations: 150,
                       seed: 52)
    registerConcurrent("Journal append: 50 sessions concurrently, 100 appends/s each (5,000/s offered), commitInterval 0",
                       sessions: 50, appendsPerSession: 20, period: .milliseconds(10), commitInterval: .zero,
                       maxIterations: 30, seed: 53)
    registerConcurrent("Journal append: 50 sessions concurrently, 100 appends/s each (5,000/s offered), commitInterval 1 ms",
                       sessions: 50, appendsPerSession: 20, period: .milliseconds(10), commitInterval: .milliseconds(1),
                       maxIterations: 30, seed: 54)
}
