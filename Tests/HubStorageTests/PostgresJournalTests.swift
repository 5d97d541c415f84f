import Foundation
import HubDomain
@testable import HubStorage
@testable import HubStoragePostgres
import PostgresNIO
import Synchronization
import Testing

/// The PostgreSQL journal: group commit, fencing by owner and epoch, idempotent retries, and
/// rebuilding after a restart (on a fresh database per test; skipped without a test server).
@Suite("PostgreSQL journal", .enabled(if: PostgresTestDatabase.available))
struct PostgresJournalTests {
    static func header(_ id: String, code: String? = nil) -> SessionHeader {
        SessionHeader(sessionId: id, scenarioId: "ordering-coffee", joinCode: code, maxPlayers: 4, startedAt: 1_000)
    }

    static func entry(_ session: String, _ seq: Int) -> JournalEntry {
        JournalEntry(sessionId: session, seq: seq, timestamp: Int64(seq), event: .line(Fixture.line(seq, speaker: "ana", at: Int64(seq)), ref: "r\(seq)"))
    }

    @Test("Every kind of event round-trips, and a new journal object on the same database rebuilds the open sessions")
    func roundTripAndRestart() async throws {
        try await PostgresTestDatabase.with { pool in
            let journal = PostgresJournal(pool: pool, nodeId: "n1")
            try await journal.opened(Self.header("s1", code: "ABC123"))
            let entries = SQLiteJournalTests.events(session: "s1").enumerated().map {
                JournalEntry(sessionId: "s1", seq: $0 + 1, timestamp: 100 + Int64($0), event: $1)
            }
            for entry in entries { try await journal.append(entry) }
            let restarted = PostgresJournal(pool: pool, nodeId: "n1")
            #expect(try await restarted.openSessions() == [Self.header("s1", code: "ABC123")])
            #expect(try await restarted.entries(sessionId: "s1") == entries)
            #expect(restarted.heldEpoch("s1") == 1)
            // Another node owns nothing.
            #expect(try await PostgresJournal(pool: pool, nodeId: "n2").openSessions().isEmpty)
            await restarted.closed(sessionId: "s1")
            #expect(try await restarted.openSessions().isEmpty)
            #expect(try await restarted.entries(sessionId: "s1").isEmpty)
        }
    }

    @Test("With commits in flight side by side, appends that do not wait for each other, some of one session, are all durable")
    func pipelinedAppendsKeepOrder() async throws {
        try await PostgresTestDatabase.with { pool in
            let journal = PostgresJournal(pool: pool, nodeId: "n1", commitsInFlight: 3)
            try await journal.opened(Self.header("p"))
            for s in 0..<4 { try await journal.opened(Self.header("q\(s)")) }
            // Appends of "p" issued without waiting for each other, among other sessions' appends
            // (their order within a batch is JournalCommitQueueTests' business).
            try await withThrowingTaskGroup(of: Void.self) { group in
                for seq in 1...40 {
                    group.addTask { try await journal.append(Self.entry("p", seq)) }
                    group.addTask { try await journal.append(Self.entry("q\(seq % 4)", seq)) }
                    try await Task.sleep(for: .microseconds(200))
                }
                try await group.waitForAll()
            }
            #expect(try await journal.entries(sessionId: "p").map(\.seq) == Array(1...40))
            for s in 0..<4 {
                #expect(try await journal.entries(sessionId: "q\(s)").map(\.seq) == Array(stride(from: s == 0 ? 4 : s, through: 40, by: 4)))
            }
        }
    }

    @Test("Concurrent appends from many sessions are all durable, in fewer transactions than appends")
    func groupCommit() async throws {
        try await PostgresTestDatabase.with { pool in
            let journal = PostgresJournal(pool: pool, nodeId: "n1")
            let sessions = 20, perSession = 15
            for s in 0..<sessions { try await journal.opened(Self.header("s\(s)")) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for s in 0..<sessions {
                    group.addTask {
                        for seq in 1...perSession { try await journal.append(Self.entry("s\(s)", seq)) }
                    }
                }
                try await group.waitForAll()
            }
            for s in 0..<sessions {
                #expect(try await journal.entries(sessionId: "s\(s)").map(\.seq) == Array(1...perSession))
            }
            #expect(journal.commitCount < sessions * perSession, "group commit: \(journal.commitCount) transactions")
        }
    }

    @Test("A session claimed by another node fences the old owner: its append throws and nothing is stored")
    func fencing() async throws {
        try await PostgresTestDatabase.with { pool in
            let journal = PostgresJournal(pool: pool, nodeId: "n1")
            try await journal.opened(Self.header("s1"))
            try await journal.append(Self.entry("s1", 1))
            // Another node takes the session behind this one's back (a claim bumps the epoch).
            try await pool.client.query("UPDATE sessions SET owner_node = 'n2', epoch = epoch + 1 WHERE session_id = 's1'")
            await #expect(throws: JournalFailure.fenced(sessionId: "s1")) { try await journal.append(Self.entry("s1", 2)) }
            #expect(try await journal.entries(sessionId: "s1").map(\.seq) == [1])
            // The new owner writes at its epoch.
            let adopter = PostgresJournal(pool: pool, nodeId: "n2")
            adopter.hold("s1", epoch: 2)
            try await adopter.append(Self.entry("s1", 2))
            #expect(try await adopter.entries(sessionId: "s1").map(\.seq) == [1, 2])
            // The old owner cannot even close it.
            await journal.closed(sessionId: "s1")
            #expect(try await adopter.openSessions().map(\.sessionId) == ["s1"])
        }
    }

    @Test("An entry written again at the same epoch (a retry after a lost answer) is not an error and is stored once")
    func idempotentRetry() async throws {
        try await PostgresTestDatabase.with { pool in
            let journal = PostgresJournal(pool: pool, nodeId: "n1")
            try await journal.opened(Self.header("s1"))
            try await journal.append(Self.entry("s1", 1))
            try await journal.append(Self.entry("s1", 1))
            #expect(try await journal.entries(sessionId: "s1").map(\.seq) == [1])
        }
    }

    @Test("Entries appended together are one commit; a group partly stored before (a retry) succeeds; a fenced group stores nothing")
    func groupedAppends() async throws {
        try await PostgresTestDatabase.with { pool in
            let journal = PostgresJournal(pool: pool, nodeId: "n1")
            try await journal.opened(Self.header("s1"))
            let before = journal.commitCount
            try await journal.append(contentsOf: (1...5).map { Self.entry("s1", $0) })
            #expect(journal.commitCount == before + 1)
            // A retry of a group whose first rows were already stored at this epoch.
            try await journal.append(contentsOf: (4...7).map { Self.entry("s1", $0) })
            #expect(try await journal.entries(sessionId: "s1").map(\.seq) == Array(1...7))
            try await pool.client.query("UPDATE sessions SET owner_node = 'n2', epoch = epoch + 1 WHERE session_id = 's1'")
            await #expect(throws: JournalFailure.fenced(sessionId: "s1")) {
                try await journal.append(contentsOf: (8...9).map { Self.entry("s1", $0) })
            }
            #expect(try await journal.entries(sessionId: "s1").map(\.seq) == Array(1...7))
        }
    }

    @Test("A database that cannot be reached makes appends throw unavailable")
    func unavailable() async throws {
        try await PostgresTestDatabase.with { pool in
            let journal = PostgresJournal(pool: pool, nodeId: "n1")
            try await journal.opened(Self.header("s1"))
            pool.close()
            await #expect(throws: JournalFailure.self) { try await journal.append(Self.entry("s1", 1)) }
        }
    }

    @Test("The journal's commits reuse one generic plan: their connections plan the insert once, not on every commit")
    func commitsAreNotReplanned() async throws {
        try await PostgresTestDatabase.with { pool in
            let journal = PostgresJournal(pool: pool, nodeId: "n1", commitsInFlight: 1)
            try await journal.opened(Self.header("s1"))
            for seq in 1...12 { try await journal.append(Self.entry("s1", seq)) }
            var modes: [String] = []
            for try await mode in try await pool.journalClient.query("SHOW plan_cache_mode", logger: pool.logger).decode(String.self) {
                modes.append(mode)
            }
            #expect(modes == ["force_generic_plan"])
            // The same statement on a general connection is left to PostgreSQL's default.
            var general: [String] = []
            for try await mode in try await pool.client.query("SHOW plan_cache_mode", logger: pool.logger).decode(String.self) {
                general.append(mode)
            }
            #expect(general == ["auto"])
            // Where the insert was prepared, it was never given a custom plan. Every journal
            // connection is held at once, so each is asked (the view shows its own connection's).
            final class Leased: Sendable {
                let count = Atomic<Int>(0)
            }
            let leased = Leased()
            let connections = pool.journalConnections
            var custom: Int64 = 0, generic: Int64 = 0, prepared = 0
            try await withThrowingTaskGroup(of: (Int64, Int64, Int).self) { group in
                for _ in 0..<connections {
                    group.addTask {
                        try await pool.journalClient.withConnection { connection in
                            leased.count.add(1, ordering: .relaxed)
                            for _ in 0..<5_000 where leased.count.load(ordering: .relaxed) < connections {
                                try await Task.sleep(for: .milliseconds(1))
                            }
                            var found: (Int64, Int64, Int) = (0, 0, 0)
                            let rows = try await connection.query("""
                                SELECT custom_plans, generic_plans FROM pg_prepared_statements WHERE statement LIKE '%INSERT INTO journal%'
                                """, logger: pool.logger)
                            for try await (c, g) in rows.decode((Int64, Int64).self) { found = (found.0 + c, found.1 + g, found.2 + 1) }
                            return found
                        }
                    }
                }
                for try await (c, g, n) in group { custom += c; generic += g; prepared += n }
            }
            #expect(leased.count.load(ordering: .relaxed) == connections)
            #expect(prepared >= 1)
            #expect(custom == 0)
            #expect(generic >= 1)
        }
    }
}
