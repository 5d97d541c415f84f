import Foundation
import HubDomain
@testable import HubStorage
import Testing

@Suite("SQLite sealing and retry")
struct SQLiteSealingTests {
    @Test("A failed write answers networkError to everyone, keeps the sealed session, and retrySealed writes it")
    func failedWriteIsSealedAndRetried() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try SQLiteStore(path: dir.file())
        try await store.makePremium("ana")
        let session = Fixture.session("m1", endedAt: Day.mon16, multiplayer: true, users: [("ana", 70), ("bob", 30)])

        store.failNextWrites = 1
        let results = await store.save(session)
        #expect(results == ["ana": .error(.networkError), "bob": .error(.networkError)])
        // The transaction rolled back: no history, no progress, no profile for bob.
        #expect(try store.count("history") == 0)
        #expect(try store.count("progress") == 0)
        #expect(try await store.profile(userId: "bob") == nil)
        #expect(await store.knownWords(userId: "ana", language: "es").isEmpty, "new words outside the rolled-back write")
        #expect(try store.sealedCount() == 1)
        let sealed = try store.sealedSessions()
        #expect(sealed.map(\.sessionId) == ["m1"])
        #expect(sealed.first?.attempts == 1)
        #expect(sealed.first?.lastError?.contains("injected") == true)

        // A retry that fails too keeps it and counts the attempt.
        store.failNextWrites = 1
        #expect(await store.retrySealed() == 0)
        #expect(try store.sealedSessions().first?.attempts == 2)
        #expect(try store.count("history") == 0)

        #expect(await store.retrySealed() == 1)
        #expect(try store.sealedCount() == 0)
        let saved = try #require(try await store.getSession(userId: "ana", sessionId: "m1"))
        #expect(saved.dialogLines == session.lines)
        #expect(saved.recasts == session.recasts)
        #expect(saved.stats == session.participants[0].figures.stats)
        #expect(try await store.getSession(userId: "bob", sessionId: "m1") == nil)
        // The new words came with the retried write.
        #expect(await store.knownWords(userId: "ana", language: "es") == ["café"])
        #expect(await store.knownWords(userId: "bob", language: "es") == ["café"])
        // Applied exactly once.
        #expect(try await store.progress(userId: "ana").first?.totalXP == 70)
        #expect(try await store.progress(userId: "bob").first?.totalXP == 30)
        #expect(try await store.progress(userId: "ana").first?.totalSessions == 1)
        // Nothing left to do.
        #expect(await store.retrySealed() == 0)
        #expect(try await store.progress(userId: "ana").first?.totalSessions == 1)
    }

    @Test("Sealed sessions survive a restart and are written by the next process")
    func sealedSurvivesReopen() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let session = Fixture.session("s1", endedAt: Day.tue24, users: [("ana", 12)])
        do {
            let store = try SQLiteStore(path: dir.file())
            try await store.makePremium("ana")
            store.failNextWrites = 1
            #expect(await store.save(session) == ["ana": .error(.networkError)])
            store.close()
        }
        let store = try SQLiteStore(path: dir.file())
        #expect(try store.sealedCount() == 1)
        #expect(await store.retrySealed() == 1)
        let saved = try #require(try await store.getSession(userId: "ana", sessionId: "s1"))
        #expect(saved.timestamp == Day.tue24)
        #expect(saved.stats?.xpEarned == 12)
    }

    @Test("Concurrent retries write each sealed session once")
    func concurrentRetries() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try SQLiteStore(path: dir.file())
        store.failNextWrites = 5
        for index in 0..<5 {
            _ = await store.save(Fixture.session("s\(index)", endedAt: Day.mon16 + Int64(index), users: [("ana", 1)]))
        }
        #expect(try store.sealedCount() == 5)
        let written = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<4 { group.addTask { await store.retrySealed() } }
            return await group.reduce(0, +)
        }
        #expect(written == 5)
        #expect(try await store.progress(userId: "ana").first?.totalSessions == 5)
        #expect(try store.sealedCount() == 0)
    }

    @Test("When the database itself is gone, the session is kept in memory and written once it is back")
    func keptInMemoryWhenUnsealable() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let database = try SQLiteDatabase(path: dir.file())
        let store = SQLiteStore(database: database)
        try await store.makePremium("ana")
        // Make every write fail: the history write and the sealing write.
        try database.withConnection { try $0.execute("PRAGMA query_only = ON") }
        let session = Fixture.session("s1", endedAt: Day.mon16, users: [("ana", 9)])
        #expect(await store.save(session) == ["ana": .error(.networkError)])
        #expect(store.unsealedInMemory == 1)
        #expect(await store.retrySealed() == 0)
        #expect(store.unsealedInMemory == 1)
        try database.withConnection { try $0.execute("PRAGMA query_only = OFF") }
        #expect(await store.retrySealed() == 1)
        #expect(store.unsealedInMemory == 0)
        #expect(try await store.getSession(userId: "ana", sessionId: "s1") != nil)
    }
}
