import ArgumentParser
import Foundation
import HubDomain
import HubStorage
import HubStoragePostgres
import Logging

/// `sessionhub-loadtest journal`: the journal's append latency — from the call to "durable" (the
/// commit of the group-commit transaction that holds it; a broadcast waits for exactly this) — on
/// SQLite and on PostgreSQL, under the same open-loop load: S sessions each appending R times a
/// second, phases spread evenly, one append in flight per session (as `LiveSession` does).
struct JournalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journal",
        abstract: "Journal append latency, SQLite vs PostgreSQL, at the same offered appends/s.")

    @Option(help: "PostgreSQL to measure (a throw-away database: sessions and journal rows are written and removed).")
    var databaseURL: String

    @Option(help: "Concurrent sessions appending.")
    var sessions: Int = 50

    @Option(help: "Appends per second per session.")
    var rate: Double = 20

    @Option(help: "Seconds of appending per store.")
    var seconds: Double = 10

    @Option(help: "Write the results as JSON to this file.")
    var json: String?

    func run() async throws {
        guard sessions > 0, rate > 0, seconds >= 1 else { throw ValidationError("--sessions, --rate and --seconds must be positive") }
        let logger = Logger(label: "journal-bench")
        var results: [JournalResult] = []

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sessionhub-journal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: directory.appendingPathComponent("hub.sqlite").path)
        let sqlite = SQLiteJournal(database: store.database)
        results.append(try await measure("SQLite (WAL, synchronous=NORMAL)", journal: sqlite))
        sqlite.close()

        let pool = try await PostgresPool.open(try PostgresURL(databaseURL), logger: logger)
        let postgres = PostgresJournal(pool: pool, nodeId: "bench-\(UUID().uuidString.prefix(8).lowercased())")
        results.append(try await measure("PostgreSQL (synchronous_commit on)", journal: postgres))
        pool.close()

        let offered = Double(sessions) * rate
        print(String(format: "journal append latency, %d sessions x %.0f appends/s = %.0f appends/s offered, %.0f s per store",
                     sessions, rate, offered, seconds))
        print("store                               appends   appends/s      p50 µs      p90 µs      p99 µs      max µs")
        for r in results {
            print(String(format: "%-34@ %9d %11.0f %11.0f %11.0f %11.0f %11.0f",
                         r.store as NSString, r.appends, r.perSecond, r.p50, r.p90, r.p99, r.max))
        }
        if let json {
            let data = try JSONEncoder().encode(results)
            try data.write(to: URL(fileURLWithPath: json))
        }
    }

    /// Runs the load on `journal`: every session opened, appends on schedule, closed (removed).
    private func measure(_ store: String, journal: any SessionJournal) async throws -> JournalResult {
        let ids = (0..<sessions).map { _ in UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased() }
        for (index, id) in ids.enumerated() {
            try await journal.opened(SessionHeader(sessionId: id, scenarioId: "bench", joinCode: nil, maxPlayers: 4,
                                                   startedAt: Int64(index)))
        }
        let perSession = max(1, Int(rate * seconds))
        let period = Duration.nanoseconds(Int64(1e9 / rate))
        let clock = ContinuousClock()
        let start = clock.now + .milliseconds(50)
        let began = clock.now
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for (index, id) in ids.enumerated() {
                group.addTask {
                    var taken: [Double] = []
                    taken.reserveCapacity(perSession)
                    let phase = period * (Double(index) / Double(ids.count))
                    for k in 0..<perSession {
                        let due = start + phase + period * k
                        if clock.now < due { try await Task.sleep(until: due, tolerance: .microseconds(10), clock: clock) }
                        let line = DialogLine(id: "l\(k + 1)", speakerId: "user-\(index)", roleName: "Resident",
                                              textNative: "Il piano chiude il centro alle auto. (\(k))",
                                              textTranslated: "The plan closes the centre to cars.", timestamp: Int64(k))
                        let entry = JournalEntry(sessionId: id, seq: k + 1, timestamp: Int64(k), event: .line(line, ref: "s\(k)"))
                        let before = clock.now
                        try await journal.append(entry)
                        let took = clock.now - before
                        taken.append(Double(took.components.seconds) * 1e6 + Double(took.components.attoseconds) / 1e12)
                    }
                    return taken
                }
            }
            var all: [Double] = []
            for try await taken in group { all += taken }
            return all
        }
        let elapsed = clock.now - began
        for id in ids { await journal.closed(sessionId: id) }
        let sorted = latencies.sorted()
        func quantile(_ q: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))] }
        let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return JournalResult(store: store, appends: sorted.count, perSecond: Double(sorted.count) / max(wall, 1e-9),
                             p50: quantile(0.5), p90: quantile(0.9), p99: quantile(0.99), max: sorted.last ?? 0)
    }
}

/// One store's figures (microseconds).
struct JournalResult: Codable, Sendable {
    var store: String
    var appends: Int
    var perSecond: Double
    var p50: Double
    var p90: Double
    var p99: Double
    var max: Double
}
