// 3. History listing with 1,000,000 stored sessions (`SQLiteStore.getSessions`), and the
// session-end write into that same database.
import Benchmark
import Foundation
import HubDomain
import HubStorage

/// The store opened on the prepared 1,000,000-session file, as the server opens it.
final class ListingCase {
    var store: SQLiteStore?
    var generator = SeededGenerator(seed: 7)

    /// Opens the store; `describe` notes the fixture and the query plan on standard error.
    func open(describe: Bool = false) throws {
        let prepared = HistoryFixture.prepared
        store = try SQLiteStore(path: prepared.path)
        guard describe else { return }
        StorageFixtureReport.noteOnce("history-fixture") {
            let built = prepared.buildSeconds.map { String(format: "%.1f s", $0) } ?? "unknown time"
            let plan = (try? self.store!.database.withConnection { db in
                try db.query("""
                    EXPLAIN QUERY PLAN
                    SELECT session_id, scenario_title, timestamp, target_language, duration_seconds, line_count, xp_earned
                    FROM history WHERE user_id = ? AND timestamp < ? ORDER BY timestamp DESC, session_id DESC LIMIT 20
                    """, [.text("x"), .integer(0)]) { $0.string(3) }
            })?.joined(separator: "; ") ?? "?"
            return String(format: "history fixture: %@ (%@), %.2f GB, build took %@; plan: %@",
                          prepared.path, prepared.builtNow ? "built now" : "reused", Double(prepared.fileBytes) / 1e9,
                          built, plan)
        }
    }

    func close() {
        store?.close()
        store = nil
    }
}

func registerHistoryBenchmarks() {
    let configuration = Benchmark.Configuration(warmupIterations: 50, maxDuration: .seconds(3), maxIterations: 10_000)

    func registerListing(_ name: String, limit: Int, before: Int64?, expectedFirst: Int64?, describe: Bool = false) {
        let listing = ListingCase()
        Benchmark(name, configuration: configuration) { benchmark in
            let page = try await listing.store!.getSessions(userId: HistoryFixture.targetUser, limit: limit, before: before)
            benchmark.stopMeasurement()
            if page.sessions.count != limit || page.total != HistoryFixture.targetSessions
                || (expectedFirst != nil && page.sessions.first?.timestamp != expectedFirst) {
                benchmark.error("unexpected page: total \(page.total), \(page.sessions.count) sessions, "
                    + "first \(String(describing: page.sessions.first?.timestamp))")
            }
        } setup: {
            try listing.open(describe: describe)
        } teardown: {
            listing.close()
        }
    }

    registerListing("History listing of 1M sessions: first page of 20 (user with 1,000 sessions)",
                    limit: 20, before: nil, expectedFirst: HistoryFixture.newestTargetTimestamp, describe: true)
    registerListing("History listing of 1M sessions: deep page of 20 (before = middle of the user's history)",
                    limit: 20, before: HistoryFixture.middleTargetTimestamp,
                    expectedFirst: HistoryFixture.middleTargetTimestamp - 1_000 * HistoryFixture.spacingMs)
    // DESIGN.md's target: the 50 most recent.
    registerListing("History listing of 1M sessions: first page of 50 (user with 1,000 sessions)",
                    limit: 50, before: nil, expectedFirst: HistoryFixture.newestTargetTimestamp)

    // A different user each iteration (of the 10,000, about 100 sessions each): few of their pages
    // are in SQLite's own page cache (2 MB), most come from the OS page cache.
    let many = ListingCase()
    Benchmark("History listing of 1M sessions: first page of 20, a different user each iteration",
              configuration: configuration) { benchmark in
        let userId = HistoryFixture.userId(Int.random(in: 0..<HistoryFixture.userCount, using: &many.generator))
        benchmark.startMeasurement()
        let page = try await many.store!.getSessions(userId: userId, limit: 20, before: nil)
        benchmark.stopMeasurement()
        if page.sessions.count != 20 { benchmark.error("\(userId): only \(page.sessions.count) sessions") }
    } setup: {
        try many.open()
    } teardown: {
        many.close()
    }

    // The session-end write of section 1 into the 1,000,000-session database (bigger indexes).
    // Its users are not among the fixture's 10,000; their rows are deleted afterwards.
    let writers = SessionEndCase(premium: ["bench-writer-host", "bench-writer-guest"], free: ["bench-writer-free"],
                                 lineCount: 30, recastCount: 5, seed: 4)
    Benchmark("Session end: save into the 1M-session database (3 participants: 2 premium + 1 free, 30 lines, 5 recasts)",
              configuration: .init(warmupIterations: 20, maxDuration: .seconds(6), maxIterations: 2_000)) { benchmark in
        let session = try writers.next()
        benchmark.startMeasurement()
        let results = await writers.target!.store.save(session)
        benchmark.stopMeasurement()
        writers.check(results, benchmark)
    } setup: {
        let target = try StoreUnderTest(name: "session-end-1m", path: HistoryFixture.prepared.path)
        for userId in writers.userIds { _ = try await target.store.clear(userId: userId) }
        try await target.addUsers(premium: writers.premium, free: writers.free)
        writers.target = target
    } teardown: {
        if let target = writers.target {
            for userId in writers.userIds { _ = try await target.store.clear(userId: userId) }
            try target.store.database.transaction { db in
                for userId in writers.userIds {
                    try db.run("DELETE FROM progress_sessions WHERE user_id = ?", [.text(userId)])
                }
            }
            target.journal.close()
            target.store.close()
            BenchDirectory.remove(target.directory)
        }
        writers.target = nil
    }
}
