// 1. Session end: the history write of an ended session (`SQLiteStore.save`), on a real file.
import Benchmark
import Foundation
import HubDomain
import HubStorage

/// A store wired as `sessionhub serve` wires it: `SQLiteStore(path:)` (WAL, background
/// checkpointer every 500 ms) and a `SQLiteJournal` sharing its database.
final class StoreUnderTest {
    let directory: String
    let store: SQLiteStore
    let journal: SQLiteJournal

    init(name: String, path: String? = nil, commitInterval: Duration = .milliseconds(2)) throws {
        directory = BenchDirectory.fresh(name)
        store = try SQLiteStore(path: path ?? directory + "/sessionhub.sqlite")
        journal = SQLiteJournal(database: store.database, commitInterval: commitInterval)
    }

    /// Gives the users their profiles: `premium` ones through the operator switch, the others free.
    func addUsers(premium: [String], free: [String]) async throws {
        for userId in premium {
            _ = try await store.setPremium(userId: userId, isPremium: true, actor: "bench-admin", at: Clock.mon23 - 30 * Clock.dayMs)
        }
        for userId in free {
            _ = try await store.saveProfile(UserProfile.initial(id: userId, displayName: "Player \(userId)",
                                                                now: Clock.mon23 - 30 * Clock.dayMs))
        }
    }

    func close() {
        journal.close()
        store.close()
        BenchDirectory.remove(directory)
    }
}

/// One kind of ended session, written again and again with fresh ids and later end times.
final class SessionEndCase {
    let premium: [String]
    let free: [String]
    let lineCount: Int
    let recastCount: Int
    private var generator: SeededGenerator
    private var endedAt = Clock.mon23 + 8 * 3_600_000
    var target: StoreUnderTest?

    init(premium: [String], free: [String], lineCount: Int, recastCount: Int, seed: UInt64) {
        self.premium = premium
        self.free = free
        self.lineCount = lineCount
        self.recastCount = recastCount
        self.generator = SeededGenerator(seed: seed)
    }

    var userIds: [String] { premium + free }

    /// The next session, its journal already on disk as a live session leaves it.
    func next() throws -> EndedSession {
        endedAt += 7 * 60_000 // a session ends every 7 minutes of simulated time
        let session = SessionFixture.ended(sessionId: generator.sessionId(), userIds: userIds, lineCount: lineCount,
                                           recastCount: recastCount, endedAt: endedAt)
        try SessionFixture.writeJournal(for: session, into: target!.store.database)
        return session
    }

    /// Checks the answer: history for the premium participants, `featureLocked` for the others.
    func check(_ results: [String: HistoryWriteResult], _ benchmark: Benchmark) {
        for userId in premium where results[userId] != .success {
            benchmark.error("\(userId): \(String(describing: results[userId])), expected success")
        }
        for userId in free where results[userId] != .error(.featureLocked) {
            benchmark.error("\(userId): \(String(describing: results[userId])), expected featureLocked")
        }
    }
}

func registerSessionEndBenchmarks() {
    let configuration = Benchmark.Configuration(warmupIterations: 20, maxDuration: .seconds(6), maxIterations: 3_000)

    func register(_ name: String, _ endCase: SessionEndCase) {
        Benchmark(name, configuration: configuration) { benchmark in
            let session = try endCase.next()
            benchmark.startMeasurement()
            let results = await endCase.target!.store.save(session)
            benchmark.stopMeasurement()
            endCase.check(results, benchmark)
        } setup: {
            let target = try StoreUnderTest(name: "session-end")
            try await target.addUsers(premium: endCase.premium, free: endCase.free)
            endCase.target = target
            let sample = try endCase.next()
            StorageFixtureReport.note("\(name): transcript body \(SessionFixture.historyBodyBytes(sample)) B per "
                + "history row, \(SessionFixture.journalRows(for: sample).count) journal rows dropped per save")
        } teardown: {
            endCase.target?.close()
            endCase.target = nil
        }
    }

    // The brief's session: 3 participants (2 premium, 1 free), 30 lines, 5 recasts.
    register("Session end: save (3 participants: 2 premium + 1 free, 30 lines, 5 recasts)",
             SessionEndCase(premium: ["user-host", "user-guest"], free: ["user-free"], lineCount: 30, recastCount: 5,
                            seed: 1))
    // DESIGN.md's target size: 100 lines, 4 participants (all premium: 4 history rows, the worst case).
    register("Session end: save (4 premium participants, 100 lines, 10 recasts)",
             SessionEndCase(premium: ["user-a", "user-b", "user-c", "user-d"], free: [], lineCount: 100, recastCount: 10,
                            seed: 2))

    // Everything `LiveSession.end` asks of storage, in its order: a streak per participant
    // (one transaction each), the history save, `journal.closed` (a no-op delete after the save),
    // then the new words of each participant (one transaction each).
    let full = SessionEndCase(premium: ["user-host", "user-guest"], free: ["user-free"], lineCount: 30, recastCount: 5,
                              seed: 3)
    Benchmark("Session end: full storage path (3 streaks, save, journal closed, 3 recordWords)",
              configuration: configuration) { benchmark in
        let session = try full.next()
        let target = full.target!
        benchmark.startMeasurement()
        for participant in session.participants {
            blackHole(await target.store.streak(userId: participant.userId, endingAt: session.endedAt))
        }
        let results = await target.store.save(session)
        await target.journal.closed(sessionId: session.sessionId)
        for participant in session.participants {
            await target.store.recordWords(participant.newWords, userId: participant.userId,
                                           language: session.targetLanguage)
        }
        benchmark.stopMeasurement()
        full.check(results, benchmark)
    } setup: {
        let target = try StoreUnderTest(name: "session-end-full")
        try await target.addUsers(premium: full.premium, free: full.free)
        full.target = target
    } teardown: {
        full.target?.close()
        full.target = nil
    }
}
