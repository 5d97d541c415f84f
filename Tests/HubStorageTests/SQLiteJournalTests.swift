import Foundation
import HubDomain
@testable import HubStorage
import Testing

@Suite("SQLite journal")
struct SQLiteJournalTests {
    static func events(session: String) -> [SessionEvent] {
        let info = ParticipantInfo(userId: "ana", displayName: "Ana", roleName: "Customer", mode: .host, isHost: true,
                                   connected: true)
        let line = Fixture.line(1, speaker: "ana", at: 1_000)
        let recast = Recast(id: "r1", lineId: "l1", authorId: "bob", speakerId: "ana", correctedText: "¡Hola!",
                            explanation: nil, issueTypes: [.sentenceStructure], timestamp: 1_100)
        let stats = Fixture.participant("ana", sessionId: session, xp: 5, startedAt: 0, endedAt: 2_000).figures
        let summary = SessionEndSummary(cause: .goalReached, endedAt: 2_000, durationSeconds: 2, goalReached: true,
                                        participants: [stats],
                                        history: ["ana": .success, "bob": .error(.featureLocked),
                                                  "cy": .error(.networkError)], ref: "end-1")
        return [
            .participants(change: PresenceChange(userId: "ana", kind: .joined), participants: [info]),
            .line(line, ref: "req-1"),
            .line(line, ref: nil),
            .recast(recast, ref: "req-2"),
            .recastAccepted(recastId: "r1", lineId: "l1", userId: "ana", ref: nil),
            .hostChanged(userId: "bob"),
            .stats([stats]),
            .ended(summary),
        ]
    }

    @Test("Every kind of event round-trips through the journal")
    func roundTrip() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let journal = try SQLiteJournal(path: dir.file())
        let events = Self.events(session: "s1")
        let entries = events.enumerated().map { JournalEntry(sessionId: "s1", seq: $0 + 1, timestamp: 100 + Int64($0), event: $1) }
        try await journal.opened(Fixture.header("s1"))
        for entry in entries { try await journal.append(entry) }
        #expect(try journal.entries(sessionId: "s1") == entries)
        let kinds = try journal.database.withConnection { db in
            try db.query("SELECT kind FROM journal WHERE session_id = 's1' ORDER BY seq") { $0.string(0) }
        }
        #expect(kinds == ["participants", "line", "line", "recast", "recastAccepted", "hostChanged", "stats", "ended"])
        journal.close()
    }

    @Test("Concurrent appends from many sessions are all durable, group-committed, and read back in seq order")
    func concurrentAppends() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try SQLiteStore(path: dir.file())
        let journal = SQLiteJournal(database: store.database)
        let sessions = 40
        let perSession = 25
        try await withThrowingTaskGroup(of: Void.self) { group in
            for s in 0..<sessions {
                group.addTask {
                    // One session appends strictly in seq order, after its header, as a LiveSession does.
                    try await journal.opened(Fixture.header("session-\(s)"))
                    for seq in 1...perSession {
                        let line = Fixture.line(seq, speaker: "u\(s)", at: Int64(seq))
                        try await journal.append(JournalEntry(sessionId: "session-\(s)", seq: seq,
                                                              timestamp: Int64(seq), event: .line(line, ref: "q\(seq)")))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(journal.commitCount < sessions * perSession)
        journal.close()
        store.close()

        // Reopen: everything acknowledged is there.
        let reopenedDatabase = try SQLiteDatabase(path: dir.file())
        defer { reopenedDatabase.close() }
        let reopened = SQLiteJournal(database: reopenedDatabase)
        let ids = try reopened.openSessionIds()
        #expect(ids.count == sessions)
        #expect(ids == (0..<sessions).map { "session-\($0)" }.sorted())
        for s in 0..<sessions {
            let entries = try reopened.entries(sessionId: "session-\(s)")
            #expect(entries.map(\.seq) == Array(1...perSession))
            #expect(entries.allSatisfy {
                if case .line(let line, _) = $0.event { return line.speakerId == "u\(s)" && line.id == "l\($0.seq)" }
                return false
            })
        }
        try reopened.remove(sessionId: "session-0")
        #expect(try reopened.entries(sessionId: "session-0").isEmpty)
        #expect(try reopened.openSessionIds().count == sessions - 1)
        reopened.close()
    }

    @Test("A failed commit throws to its appenders; the next commit works")
    func failedCommit() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let journal = try SQLiteJournal(path: dir.file(), commitInterval: .milliseconds(1))
        let line = Fixture.line(1, speaker: "ana", at: 1)
        try await journal.opened(Fixture.header("s"))
        journal.failNextCommits = 1
        await #expect(throws: StorageError.self) {
            try await journal.append(JournalEntry(sessionId: "s", seq: 1, timestamp: 1, event: .line(line, ref: nil)))
        }
        #expect(try journal.entries(sessionId: "s").isEmpty)
        try await journal.append(JournalEntry(sessionId: "s", seq: 1, timestamp: 1, event: .line(line, ref: nil)))
        #expect(try journal.entries(sessionId: "s").map(\.seq) == [1])
        journal.close()
    }

    @Test("Entries appended together are one transaction: all stored, or (failed commit) none; a retry stores each once")
    func groupedAppends() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let journal = try SQLiteJournal(path: dir.file())
        let group = (1...4).map { JournalEntry(sessionId: "s", seq: $0, timestamp: Int64($0), event: .line(Fixture.line($0, speaker: "ana", at: Int64($0)), ref: nil)) }
        try await journal.opened(Fixture.header("s"))
        journal.failNextCommits = 1
        await #expect(throws: StorageError.self) { try await journal.append(contentsOf: group) }
        #expect(try journal.entries(sessionId: "s").isEmpty)
        let before = journal.commitCount
        try await journal.append(contentsOf: group)
        #expect(journal.commitCount == before + 1)
        try await journal.append(contentsOf: Array(group[2...]))
        #expect(try journal.entries(sessionId: "s").map(\.seq) == [1, 2, 3, 4])
        journal.close()
    }

    @Test("close commits what is queued and later appends throw")
    func closeStops() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        // A long interval: the second append waits in the queue until close flushes it.
        let journal = try SQLiteJournal(path: dir.file(), commitInterval: .seconds(30))
        let line = Fixture.line(1, speaker: "ana", at: 1)
        try await journal.opened(Fixture.header("s"))
        try await journal.append(JournalEntry(sessionId: "s", seq: 1, timestamp: 1, event: .line(line, ref: nil)))
        let waiting = Task {
            try await journal.append(JournalEntry(sessionId: "s", seq: 2, timestamp: 2, event: .hostChanged(userId: "bob")))
        }
        // Let the second append reach the queue.
        while journal.pendingCount == 0 { try await Task.sleep(for: .milliseconds(1)) }
        journal.close()
        try await waiting.value
        await #expect(throws: StorageError.self) {
            try await journal.append(JournalEntry(sessionId: "s", seq: 3, timestamp: 3, event: .hostChanged(userId: "ana")))
        }
        let reopened = try SQLiteJournal(path: dir.file())
        #expect(try reopened.entries(sessionId: "s").map(\.seq) == [1, 2])
        reopened.close()
    }
}
