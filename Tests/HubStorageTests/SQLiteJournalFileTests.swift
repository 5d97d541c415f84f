import Foundation
import HubDomain
@testable import HubStorage
import Synchronization
import Testing

/// The journal in a file of its own beside the store's: an ended session's rows go after its
/// history write, a crash in between never rebuilds it, and rows from before the split move over.
@Suite("SQLite journal in its own file")
struct SQLiteJournalFileTests {
    static func line(_ sessionId: String, _ seq: Int) -> JournalEntry {
        JournalEntry(sessionId: sessionId, seq: seq, timestamp: Int64(1_000 + seq),
                     event: .line(Fixture.line(seq, speaker: "ana", at: Int64(1_000 + seq)), ref: "q\(seq)"))
    }

    /// A store and a journal in its own file beside it, in a fresh directory, closed afterwards.
    static func withStoreAndJournal(_ body: (SQLiteStore, SQLiteJournal) async throws -> Void) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try SQLiteStore(path: dir.file())
        let journal = try SQLiteJournal(path: SQLiteJournal.path(besideStore: dir.file()))
        defer {
            journal.close()
            store.close()
        }
        try await body(store, journal)
    }

    @Test("The journal's file sits beside the store's")
    func pathBesideStore() {
        #expect(SQLiteJournal.path(besideStore: "data/sessionhub.sqlite") == "data/sessionhub-journal.sqlite")
        #expect(SQLiteJournal.path(besideStore: "/var/lib/hub/db") == "/var/lib/hub/db-journal.sqlite")
    }

    @Test("A session whose history was written before a crash dropped its journal is not rebuilt")
    func crashBetweenSaveAndDrop() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let storePath = dir.file()
        let journalPath = SQLiteJournal.path(besideStore: storePath)
        do {
            let store = try SQLiteStore(path: storePath)
            let journal = try SQLiteJournal(path: journalPath)
            for id in ["ended", "live"] {
                try await journal.opened(Fixture.header(id))
                try await journal.append(Self.line(id, 1))
            }
            // The history write commits; the process dies before `closed(sessionId:)`.
            let results = await store.save(Fixture.session("ended", endedAt: Day.mon23, users: [("ana", 10)]))
            #expect(results["ana"] != .error(.networkError))
            #expect(try store.count("ended_sessions") == 1)
            #expect(try journal.entries(sessionId: "ended").count == 1)  // still there: another file
            journal.close()
            store.close()
        }
        let store = try SQLiteStore(path: storePath)
        let journal = try SQLiteJournal(path: journalPath)
        #expect(try journal.forgetEnded(in: store.database) == 1)
        #expect(try await journal.openSessions().map(\.sessionId) == ["live"])
        #expect(try journal.entries(sessionId: "ended").isEmpty)
        #expect(try journal.entries(sessionId: "live").count == 1)
        #expect(try store.count("ended_sessions") == 0)  // pruned: nothing left to drop
        #expect(try journal.forgetEnded(in: store.database) == 0)
        journal.close()
        store.close()
    }

    @Test("A marker written after the journal's sessions were listed is kept for the next pass")
    func markersPrunedOnlyUpToTheListing() async throws {
        try await Self.withStoreAndJournal { store, journal in
            try await journal.opened(Fixture.header("a"))
            try await journal.append(Self.line("a", 1))
            _ = await store.save(Fixture.session("a", endedAt: Day.mon23, users: [("ana", 10)]))
            #expect(try journal.forgetEnded(in: store.database) == 1)
            // A session that ends later gets its own marker, dropped by the next pass.
            try await journal.opened(Fixture.header("b"))
            try await journal.append(Self.line("b", 1))
            _ = await store.save(Fixture.session("b", endedAt: Day.mon23, users: [("bob", 10)]))
            #expect(try store.count("ended_sessions") == 1)
            #expect(try journal.forgetEnded(in: store.database) == 1)
            #expect(try await journal.openSessions().isEmpty)
            #expect(try store.count("ended_sessions") == 0)
        }
    }

    @Test("Rows kept in the store's file from before the split move to the journal's file, once")
    func adoptsRowsFromTheStoreFile() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try SQLiteStore(path: dir.file())
        do {
            let shared = SQLiteJournal(database: store.database)  // the layout before the split
            try await shared.opened(Fixture.header("old"))
            for seq in 1...3 { try await shared.append(Self.line("old", seq)) }
        }
        let journal = try SQLiteJournal(path: SQLiteJournal.path(besideStore: dir.file()))
        defer {
            journal.close()
            store.close()
        }
        #expect(try journal.adoptRows(from: store.database) == 1)
        #expect(try store.count("journal") == 0)
        #expect(try store.count("journal_sessions") == 0)
        #expect(try await journal.openSessions().map(\.sessionId) == ["old"])
        #expect(try journal.entries(sessionId: "old") == (1...3).map { Self.line("old", $0) })
        #expect(try journal.adoptRows(from: store.database) == 0)
    }

    @Test("A sealed session (its history write failed) is marked too: the retry owns it, not the journal")
    func sealedSessionIsMarked() async throws {
        try await Self.withStoreAndJournal { store, journal in
            try await journal.opened(Fixture.header("s"))
            try await journal.append(Self.line("s", 1))
            store.failNextWrites = 1
            let results = await store.save(Fixture.session("s", endedAt: Day.mon23, users: [("ana", 10)]))
            #expect(results["ana"] == .error(.networkError))
            #expect(try store.sealedCount() == 1)
            #expect(try journal.forgetEnded(in: store.database) == 1)
            #expect(try await journal.openSessions().isEmpty)
            #expect(await store.retrySealed() == 1)
        }
    }

    @Test("A journal file of version 1 keeps its rows through v2 (clustered by session) and v3 (in commit order)")
    func versionOneFileMigrates() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = SQLiteJournal.path(besideStore: dir.file())
        do {
            // The file as the first journal schema left it, with a row stored the way it stored them.
            let old = try SQLiteDatabase(path: path, migrations: [SQLiteJournalSchema.v1])
            try old.transaction { db in
                try db.run("INSERT INTO journal_sessions (session_id, started_at, body) VALUES ('a', 1000, ?)",
                           [.blob(Data(try SQLiteStore.encode(Fixture.header("a"))))])
            }
            old.close()
            let journal = try SQLiteJournal(path: path)
            try await journal.append(Self.line("a", 1))
            journal.close()
        }
        let journal = try SQLiteJournal(path: path)
        defer { journal.close() }
        #expect(try await journal.openSessions().map(\.sessionId) == ["a"])
        #expect(try journal.entries(sessionId: "a").map(\.seq) == [1])
        let (table, headers) = try journal.database.withConnection { db in
            (try db.queryFirst("SELECT sql FROM sqlite_master WHERE name = 'journal'") { $0.string(0) } ?? "",
             try db.queryFirst("SELECT sql FROM sqlite_master WHERE name = 'journal_sessions'") { $0.string(0) } ?? "")
        }
        #expect(table.contains("pos        INTEGER PRIMARY KEY") && !table.contains("WITHOUT ROWID"))
        #expect(headers.contains("first_pos"))
    }

    @Test("The oldest open session's first position is read from an index, in the journal's file and in the store's")
    func firstPositionIndexed() async throws {
        try await Self.withStoreAndJournal { store, journal in
            for database in [journal.database, store.database] {
                let plan = try database.withConnection { db in
                    try db.query("EXPLAIN QUERY PLAN SELECT MIN(first_pos) FROM journal_sessions") { $0.string(3) }
                }
                #expect(plan.contains { $0.contains("journal_sessions_by_first_pos") }, "plan: \(plan)")
            }
            try await journal.opened(Fixture.header("b"))
            try await journal.append(Self.line("b", 1))
            try await journal.opened(Fixture.header("a"))
            try await journal.append(Self.line("a", 1))
            await journal.closed(sessionId: "b")
            // b opened first: its end frees its row; a's stays.
            #expect(try Self.rows(journal) == ["a1"])
        }
    }

    /// The rows of `journal` in the file, as (session, seq), in position order.
    static func rows(_ journal: SQLiteJournal) throws -> [String] {
        try journal.database.withConnection { db in
            try db.query("SELECT session_id, seq FROM journal ORDER BY pos") { "\($0.string(0))\($0.int(1))" }
        }
    }

    @Test("An ended session's rows go by ranges: those older than every open session at once, the rest when that one ends")
    func rangeDeletes() async throws {
        try await Self.withStoreAndJournal { _, journal in
            try await journal.opened(Fixture.header("a"))
            try await journal.append(Self.line("a", 1))
            try await journal.opened(Fixture.header("b"))
            try await journal.append(Self.line("a", 2))
            try await journal.append(Self.line("b", 1))
            #expect(try Self.rows(journal) == ["a1", "a2", "b1"])
            await journal.closed(sessionId: "a")
            // a1 lies before b's first position and goes; a2 waits behind b, unread.
            #expect(try Self.rows(journal) == ["a2", "b1"])
            #expect(try journal.entries(sessionId: "a").isEmpty)
            #expect(try await journal.entries(sessionIds: ["a", "b"]).mapValues { $0.map(\.seq) } == ["b": [1]])
            #expect(try await journal.openSessions().map(\.sessionId) == ["b"])
            await journal.closed(sessionId: "b")
            #expect(try Self.rows(journal).isEmpty, "no session open: every row goes")
        }
    }

    @Test("Positions go on after a restart, and a header written again keeps its first position")
    func positionsAcrossARestart() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = SQLiteJournal.path(besideStore: dir.file())
        do {
            let journal = try SQLiteJournal(path: path)
            try await journal.opened(Fixture.header("old"))
            try await journal.append(contentsOf: [Self.line("old", 1), Self.line("old", 2)])
            journal.close()
        }
        let journal = try SQLiteJournal(path: path)
        defer { journal.close() }
        try await journal.opened(Fixture.header("old"))  // a rebuilt session writes its header again
        try await journal.opened(Fixture.header("new"))
        try await journal.append(Self.line("new", 1))
        try await journal.append(Self.line("old", 3))
        await journal.closed(sessionId: "new")
        #expect(try journal.entries(sessionId: "old").map(\.seq) == [1, 2, 3], "the open session's rows stay")
        #expect(try Self.rows(journal) == ["old1", "old2", "new1", "old3"])
        let positions = try journal.database.withConnection { db in
            try db.query("SELECT pos FROM journal ORDER BY pos") { $0.int64(0) }
        }
        #expect(positions == [1, 2, 3, 4])
    }

    @Test("A (session, seq) written twice reads back once, as written last")
    func repeatedSeqReadsOnce() async throws {
        try await Self.withStoreAndJournal { _, journal in
            try await journal.opened(Fixture.header("a"))
            try await journal.append(contentsOf: [Self.line("a", 1), Self.line("a", 2)])
            let again = JournalEntry(sessionId: "a", seq: 2, timestamp: 5_000, event: .hostChanged(userId: "bob"))
            try await journal.append(again)
            let entries = try journal.entries(sessionId: "a")
            #expect(entries.map(\.seq) == [1, 2])
            #expect(entries.last == again)
        }
    }

    @Test("sweepEnded deletes the ended sessions' rows held behind a long-open session, and only past sweepRows")
    func sweepBehindALongSession() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = SQLiteJournal.path(besideStore: dir.file())
        do {
            let journal = try SQLiteJournal(path: path)
            try await journal.opened(Fixture.header("long"))
            try await journal.append(Self.line("long", 1))
            try await journal.opened(Fixture.header("short"))
            try await journal.append(contentsOf: (1...3).map { Self.line("short", $0) })
            await journal.closed(sessionId: "short")
            #expect(try journal.sweepEnded() == 0, "not yet sweepRows behind")
            #expect(try Self.rows(journal).count == 4)
            // Rows of many ended sessions behind "long", written straight into the file.
            try journal.database.transaction { db in
                try db.run("""
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
                    INSERT INTO journal (pos, session_id, seq, timestamp, kind, body)
                    SELECT 100 + i, 'gone-' || (i / 10), i % 10, 0, 'hostChanged', X'7B7D' FROM n
                    """, [.integer(SQLiteJournal.sweepRows)])
            }
            journal.close()
        }
        let journal = try SQLiteJournal(path: path)  // its next position is read from the file again
        defer { journal.close() }
        try await journal.append(Self.line("long", 2))
        #expect(try journal.sweepEnded() == Int(SQLiteJournal.sweepRows) + 3)
        #expect(try Self.rows(journal) == ["long1", "long2"])
        #expect(try journal.entries(sessionId: "long").map(\.seq) == [1, 2])
        #expect(try journal.sweepEnded() == 0, "no scan again until sweepRows / 2 more positions")
    }

    /// Writes `count` rows of ended sessions (no header) straight into the journal's file, at
    /// positions `first`, `first + 1`, …
    static func insertEndedRows(_ journal: SQLiteJournal, from first: Int64, count: Int64) throws {
        try journal.database.transaction { db in
            try db.run("""
                WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1)
                INSERT INTO journal (pos, session_id, seq, timestamp, kind, body)
                SELECT ? + i, 'gone-' || (i / 10), i % 10, 0, 'hostChanged', X'7B7D' FROM n
                """, [.integer(count), .integer(first)])
        }
    }

    /// A journal in `dir` whose file holds `count` rows of ended sessions from position 1 on,
    /// opened again (so that its next position is read from the file).
    static func journalWithEndedRows(_ count: Int64, in dir: TemporaryDirectory) throws -> SQLiteJournal {
        let path = SQLiteJournal.path(besideStore: dir.file())
        let writer = try SQLiteJournal(path: path)
        try insertEndedRows(writer, from: 1, count: count)
        writer.close()
        return try SQLiteJournal(path: path)
    }

    @Test("A sweep deletes in slices, each a transaction of its own; appends made meanwhile all land")
    func sweepInSlices() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = SQLiteJournal.path(besideStore: dir.file())
        let backlog = 4 * SQLiteJournal.sweepRows
        do {
            let journal = try SQLiteJournal(path: path)
            try await journal.opened(Fixture.header("long"))
            try await journal.append(Self.line("long", 1))
            try Self.insertEndedRows(journal, from: 100, count: backlog)
            journal.close()
        }
        let journal = try SQLiteJournal(path: path)
        defer { journal.close() }
        try await journal.append(Self.line("long", 2))
        let sweeping = Mutex(true)
        let swept = Task.detached {
            defer { sweeping.withLock { $0 = false } }
            return try journal.sweepEnded()
        }
        // Appends while the sweep runs: each slice commits what is queued before it deletes.
        var seq = 3
        while sweeping.withLock({ $0 }) {
            try await journal.append(Self.line("long", seq))
            seq += 1
        }
        #expect(try await swept.value == Int(backlog))
        // Slices of sweepSlice rows from long1 on: the backlog, long1, long2 and whatever was
        // appended before the sweep chose its range.
        let slices = Int(backlog / SQLiteJournal.sweepSlice)
        #expect((slices...(slices + 2)).contains(journal.sweepTransactions.withLock { $0 }))
        #expect(try journal.entries(sessionId: "long").map(\.seq) == Array(1..<seq))
        #expect(try Self.rows(journal).count == seq - 1)
    }

    @Test("A commit that drops a session deletes at most sweepSlice positions below the open sessions; the next drops take the rest")
    func boundedRangeDrop() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let slice = SQLiteJournal.sweepSlice
        let journal = try Self.journalWithEndedRows(2 * slice + 10, in: dir)
        defer { journal.close() }
        // Open all along: the drops never reach its rows.
        try await journal.opened(Fixture.header("keep"))
        try await journal.append(Self.line("keep", 1))
        for (index, left) in [slice + 10, 10, 0].enumerated() {
            let id = "s\(index)"
            try await journal.opened(Fixture.header(id))
            try await journal.append(Self.line(id, 1))
            await journal.closed(sessionId: id)
            let rows = try Self.rows(journal)
            #expect(rows.filter { $0.hasPrefix("gone-") }.count == Int(left), "after drop \(index + 1)")
        }
        // s0…s2 lie behind keep's first position: they wait for it (or a sweep).
        #expect(try Self.rows(journal) == ["keep1", "s01", "s11", "s21"])
        #expect(try journal.entries(sessionId: "keep").map(\.seq) == [1])
    }

    @Test("On a quiet hub a sweep deletes every row older than the open sessions, in slices, whatever sweepRows says")
    func quietSweepBelowTheFloor() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let slice = SQLiteJournal.sweepSlice
        let journal = try Self.journalWithEndedRows(2 * slice + 10, in: dir)
        defer { journal.close() }
        try await journal.opened(Fixture.header("open"))
        try await journal.append(Self.line("open", 1))
        #expect(try journal.sweepEnded() == Int(2 * slice + 10))
        #expect(journal.sweepTransactions.withLock { $0 } == 3)
        #expect(try Self.rows(journal) == ["open1"])
        #expect(try journal.sweepEnded() == 0)
    }

    @Test("An ended session's rows go in the next group commit, the other sessions' rows stay")
    func closedDropsInTheGroupCommit() async throws {
        try await Self.withStoreAndJournal { _, journal in
            for id in ["a", "b"] {
                try await journal.opened(Fixture.header(id))
                try await journal.append(contentsOf: (1...3).map { Self.line(id, $0) })
            }
            let commits = journal.commitCount
            async let more: Void = journal.append(Self.line("b", 4))
            await journal.closed(sessionId: "a")
            try await more
            #expect(journal.commitCount - commits <= 2)
            #expect(try journal.entries(sessionId: "a").isEmpty)
            #expect(try journal.entries(sessionId: "b").map(\.seq) == [1, 2, 3, 4])
            #expect(try await journal.openSessions().map(\.sessionId) == ["b"])
            journal.close()
            await journal.closed(sessionId: "b")  // refused once closed, without throwing or hanging
            #expect(journal.pendingCount == 0)
        }
    }
}
