import Foundation
import HubDomain
@testable import HubStorage
import Testing

/// Sessions the user's app saved on its own (`addSession`) and whole-session pages
/// (`getFullSessions`), on both stores.
@Suite("History added by the app, and whole-session pages (SQLite and PostgreSQL)")
struct HistoryAddStoreTests {
    static func appSession(_ id: String, at timestamp: Int64, text: String = "Hola") -> HistorySession {
        HistorySession(sessionId: id, scenarioTitle: "Ordering Coffee", timestamp: timestamp, targetLanguage: "es",
                       durationSeconds: 60,
                       dialogLines: [DialogLine(id: "l1", speakerId: "ana", roleName: "Customer", textNative: text,
                                                textTranslated: "Hello", timestamp: timestamp - 1000)])
    }

    @Test("Added once: the same session again is unchanged, a different one a conflict; progress untouched", arguments: StoreBackend.all)
    func addIsIdempotent(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            try await store.makePremium("ana")
            let session = Self.appSession("app-1", at: Day.mon16)
            #expect(try await store.addSession(userId: "ana", session: session) == .created(session))
            #expect(try await store.addSession(userId: "ana", session: session) == .unchanged(session))
            let other = Self.appSession("app-1", at: Day.mon16, text: "Adiós")
            #expect(try await store.addSession(userId: "ana", session: other) == .conflict(session))
            #expect(try await store.getSession(userId: "ana", sessionId: "app-1") == session)
            let page = try await store.getSessions(userId: "ana", limit: 10, before: nil)
            #expect(page == HistoryPage(total: 1, sessions: [session.summary]))
            #expect(try await store.progress(userId: "ana").isEmpty)
            #expect(try await store.count("progress_sessions") == 0)
        }
    }

    @Test("A session the hub recorded is answered as the hub's, never replaced", arguments: StoreBackend.all)
    func hubRecordedWins(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            try await store.makePremium("ana")
            let ended = Fixture.session("s1", endedAt: Day.mon16, users: [("ana", 50)])
            #expect(await store.save(ended) == ["ana": .success])
            let hubs = try #require(try await store.getSession(userId: "ana", sessionId: "s1"))
            let posted = Self.appSession("s1", at: Day.tue24)
            #expect(try await store.addSession(userId: "ana", session: posted) == .recordedByHub(hubs))
            #expect(try await store.getSession(userId: "ana", sessionId: "s1") == hubs)
            // Deleted from history: still the hub's, and not brought back.
            #expect(try await store.deleteSession(userId: "ana", sessionId: "s1"))
            #expect(try await store.addSession(userId: "ana", session: posted) == .recordedByHub(nil))
            #expect(try await store.getSession(userId: "ana", sessionId: "s1") == nil)
            // Someone else's session id is no concern of ana's.
            let bens = Self.appSession("s2", at: Day.mon16)
            _ = await store.save(Fixture.session("s2", endedAt: Day.mon16, users: [("ben", 10)]))
            #expect(try await store.addSession(userId: "ana", session: bens) == .created(bens))
        }
    }

    @Test("Whole-session pages: most recent first, equal to single reads, paged by `before`", arguments: StoreBackend.all)
    func fullPages(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            try await store.makePremium("ana")
            _ = await store.save(Fixture.session("hub-1", endedAt: Day.mon16 + Day.hour, users: [("ana", 50)]))
            for index in 0..<4 {
                _ = try await store.addSession(userId: "ana", session: Self.appSession("app-\(index)", at: Day.mon16 + Int64(index) * 60_000))
            }
            let summaries = try await store.getSessions(userId: "ana", limit: 100, before: nil)
            let first = try await store.getFullSessions(userId: "ana", limit: 3, before: nil)
            #expect(first.total == 5)
            #expect(first.sessions.map(\.sessionId) == ["hub-1", "app-3", "app-2"])
            let second = try await store.getFullSessions(userId: "ana", limit: 3, before: first.sessions.last?.timestamp)
            #expect(second.total == 5)
            let all = first.sessions + second.sessions
            #expect(all.map(\.summary) == summaries.sessions)
            for session in all {
                #expect(try await store.getSession(userId: "ana", sessionId: session.sessionId) == session)
            }
            #expect(try await store.getFullSessions(userId: "bob", limit: 3, before: nil) == HistorySessionPage(total: 0, sessions: []))
        }
    }

    @Test("With beforeId the cursor is an entry: entries sharing its timestamp are on the next page", arguments: StoreBackend.all)
    func cursorWithTies(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            try await store.makePremium("ana")
            for id in ["a", "b", "c", "d", "e"] {
                _ = try await store.addSession(userId: "ana", session: Self.appSession(id, at: id < "c" ? Day.mon16 : Day.mon16 + 1))
            }
            var full: [String] = []
            var summaries: [String] = []
            var cursor: (Int64, String)?
            for _ in 0..<5 {
                let page = try await store.getFullSessions(userId: "ana", limit: 2, before: cursor?.0, beforeId: cursor?.1)
                let listed = try await store.getSessions(userId: "ana", limit: 2, before: cursor?.0, beforeId: cursor?.1)
                #expect(listed.sessions == page.sessions.map(\.summary))
                full += page.sessions.map(\.sessionId)
                summaries += listed.sessions.map(\.sessionId)
                guard let last = page.sessions.last, page.sessions.count == 2 else { break }
                cursor = (last.timestamp, last.sessionId)
            }
            #expect(full == ["e", "d", "c", "b", "a"])
            #expect(summaries == full)
            // `before` alone still excludes its whole millisecond.
            let older = try await store.getSessions(userId: "ana", limit: 10, before: Day.mon16 + 1)
            #expect(older.sessions.map(\.sessionId) == ["b", "a"])
        }
    }
}
