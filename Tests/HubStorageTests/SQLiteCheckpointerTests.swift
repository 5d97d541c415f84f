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
}
