import Foundation
import HubDomain
@testable import HubStorage
import Testing

@Suite("SQLite checkpointing")
struct SQLiteCheckpointerTests {
    @Test("The store's commits never checkpoint; the background checkpointer copies the whole WAL back")
    func backgroundCheckpoint() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try SQLiteStore(path: dir.file(), checkpointInterval: .seconds(3600))
        let autoCheckpoint = try store.database.withConnection { db in
            try db.queryFirst("PRAGMA wal_autocheckpoint") { $0.int(0) }
        }
        #expect(autoCheckpoint == 0)
        try await store.makePremium("ana")
        for index in 0..<20 {
            _ = await store.save(Fixture.session("s\(index)", endedAt: Day.mon16 + Int64(index), users: [("ana", 1)],
                                                 lineCount: 50))
        }
        let checkpointer = try #require(store.checkpointer)
        let result = try checkpointer.checkpoint()
        #expect(result.walPages > 0)
        #expect(result.checkpointedPages == result.walPages)
        #expect(checkpointer.checkpointCount == 1)
        store.close()
        // Everything is in the file after close.
        let reopened = try SQLiteStore(path: dir.file(), checkpointInterval: nil)
        #expect(try await reopened.getSessions(userId: "ana", limit: 100, before: nil).total == 20)
        reopened.close()
    }

    @Test("The checkpointer runs on its own at its interval")
    func periodic() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try SQLiteStore(path: dir.file(), checkpointInterval: .milliseconds(5))
        let checkpointer = try #require(store.checkpointer)
        let deadline = ContinuousClock.now + .seconds(10)
        while checkpointer.checkpointCount < 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(checkpointer.checkpointCount >= 2)
        #expect(checkpointer.lastError == nil)
        store.close()
    }

    @Test("Under back-to-back commits the WAL still starts over instead of holding everything that went through it")
    func walStartsOverUnderSteadyCommits() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file()
        let writer = try SQLiteDatabase(path: path, migrations: [], autoCheckpoint: false)
        try writer.withConnection { try $0.execute("CREATE TABLE blobs (id INTEGER PRIMARY KEY, body BLOB NOT NULL)") }
        let checkpointer = try SQLiteCheckpointer(path: path, interval: .milliseconds(2), writer: writer, restartPages: 64)
        let body = SQLiteValue.blob(Data(repeating: 7, count: 6000))
        // Commits of two pages or more each, back to back (a 1 ms pause every 250 gives the
        // checkpointer's thread a turn on a busy machine), with background passes copying while
        // commits land: what kept the WAL from ever starting over. At least 4,000 commits and
        // three steps on the writer's connection that copied what a pass had left; at most 40,000.
        var commits = 0
        while commits < 4000 || (checkpointer.restartCount < 3 && commits < 40_000) {
            try writer.transaction { db in
                _ = try db.run("INSERT INTO blobs (id, body) VALUES (?, ?)", [.integer(Int64(commits)), body])
            }
            commits += 1
            if commits % 250 == 0 { try await Task.sleep(for: .milliseconds(1)) }
        }
        checkpointer.close()
        #expect(checkpointer.restartCount >= 3)
        // The WAL's frame count (SQLite's `log`) counts from its last start over: a WAL that never
        // started over would hold every commit's two frames or more.
        let inspector = try SQLiteDatabase(path: path, migrations: [], autoCheckpoint: false)
        let walFrames = try inspector.withConnection { db in
            try db.queryFirst("PRAGMA wal_checkpoint(PASSIVE)") { $0.int(1) }
        } ?? -1
        inspector.close()
        #expect(walFrames >= 0 && walFrames < commits, "the WAL holds \(walFrames) frames after \(commits) commits")
        let stored = try writer.withConnection { db in try db.queryFirst("SELECT count(*) FROM blobs") { $0.int(0) } }
        #expect(stored == commits)
        let limit = try writer.withConnection { db in try db.queryFirst("PRAGMA journal_size_limit") { $0.int(0) } }
        #expect(limit == SQLiteCheckpointer.walSizeLimit)
        writer.close()
    }

    @Test("The writer-side step runs only past restartPages, and counts only when it copied what the pass had left")
    func writerStepThreshold() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file()
        let writer = try SQLiteDatabase(path: path, migrations: [], autoCheckpoint: false)
        try writer.withConnection { try $0.execute("CREATE TABLE blobs (id INTEGER PRIMARY KEY, body BLOB NOT NULL)") }
        let checkpointer = try SQLiteCheckpointer(path: path, interval: .seconds(3600), writer: writer, restartPages: 64)
        let body = SQLiteValue.blob(Data(repeating: 7, count: 6000))
        func commit(_ count: Int, from first: Int) throws {
            for id in first..<(first + count) {
                try writer.transaction { db in
                    _ = try db.run("INSERT INTO blobs (id, body) VALUES (?, ?)", [.integer(Int64(id)), body])
                }
            }
        }
        // A small WAL: the pass alone, no step.
        try commit(5, from: 0)
        #expect(try checkpointer.checkpointAndRestart() == false)
        // Past the threshold with nothing landing during the pass: the step finds nothing left
        // (no count), and the WAL is wholly copied, so the next commit starts it over.
        try commit(100, from: 5)
        let passes = checkpointer.checkpointCount
        #expect(try checkpointer.checkpointAndRestart() == true)
        #expect(checkpointer.restartCount == 0)
        #expect(checkpointer.checkpointCount == passes + 2, "the first pass and one catch-up pass, which found nothing added (the step is not counted)")
        try commit(1, from: 105)
        #expect(try checkpointer.checkpoint().walPages < 10)
        checkpointer.close()
        writer.close()
    }
}
