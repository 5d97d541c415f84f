import Foundation
import HubDomain
@testable import HubStorage
import Testing

/// The journal as an append-only log of segment files: what it wrote comes back after a restart,
/// a torn tail ends the log, ended sessions' segments go, long sessions are copied forward, and
/// open sessions move between it and the SQLite journal.
@Suite("Log journal")
struct LogJournalTests {
    static func line(_ sessionId: String, _ seq: Int) -> JournalEntry {
        SQLiteJournalFileTests.line(sessionId, seq)
    }

    /// A fresh temporary directory and the journal's directory in it.
    static func logDirectory() throws -> (TemporaryDirectory, String) {
        let dir = try TemporaryDirectory()
        return (dir, dir.file("journal.log"))
    }

    /// Segment files in `directory`.
    static func segments(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".log") }.sorted()
    }

    /// The offset just past each record that decodes, from the start of `bytes` up to the first
    /// one that does not.
    static func recordEnds(_ bytes: [UInt8]) -> [Int] {
        var ends: [Int] = []
        bytes.withUnsafeBufferPointer { buffer in
            var offset = 0
            while let (_, next) = LogRecord.decode(buffer, at: offset) {
                ends.append(next)
                offset = next
            }
        }
        return ends
    }

    @Test("Records survive encoding, and a damaged byte ends what is read")
    func recordCodec() throws {
        let records: [LogRecord] = [
            .header(sessionId: "s1", startedAt: 42, body: Array(#"{"a":1}"#.utf8)),
            .entry(sessionId: "s1", seq: 7, timestamp: -3, kind: "line", body: Array("é{}".utf8)),
            .drop(sessionId: "s1"),
            .start(previousSegment: 3, previousSize: 4096),
        ]
        var bytes: [UInt8] = []
        for record in records { try record.encode(into: &bytes) }
        var read: [LogRecord] = []
        bytes.withUnsafeBufferPointer { buffer in
            var offset = 0
            while let (record, next) = LogRecord.decode(buffer, at: offset) {
                read.append(record)
                offset = next
            }
            #expect(offset == buffer.count)
        }
        #expect(read == records)
        // One flipped byte in the second record: the first is read, nothing after it.
        var damaged = bytes
        var first: [UInt8] = []
        try records[0].encode(into: &first)
        damaged[first.count + 12] ^= 0x40
        #expect(Self.recordEnds(damaged).count == 1)
        // A record cut short is not read.
        let cut = Array(bytes.prefix(first.count + 5))
        cut.withUnsafeBufferPointer { buffer in
            #expect(LogRecord.decode(buffer, at: first.count) == nil)
        }
    }

    @Test("Open sessions and their entries come back after a restart; an ended one does not")
    func restart() async throws {
        let (dir, path) = try Self.logDirectory()
        defer { dir.remove() }
        do {
            let journal = try LogJournal(directory: path)
            for id in ["a", "b"] {
                try await journal.opened(Fixture.header(id))
                try await journal.append(contentsOf: [Self.line(id, 1), Self.line(id, 2)])
            }
            try await journal.append(Self.line("a", 2))  // a repeated write counts once
            await journal.closed(sessionId: "b")
            #expect(journal.commitCount >= 4)
            journal.close()
            await #expect(throws: StorageError.self) { try await journal.append(Self.line("a", 3)) }
        }
        let journal = try LogJournal(directory: path)
        defer { journal.close() }
        #expect(try await journal.openSessions() == [Fixture.header("a")])
        #expect(try await journal.entries(sessionId: "a").map(\.seq) == [1, 2])
        #expect(try await journal.entries(sessionId: "a") == [Self.line("a", 1), Self.line("a", 2)])
        #expect(try await journal.entries(sessionId: "b").isEmpty)
        let both = try await journal.entries(sessionIds: ["a", "b"])
        #expect(both.keys.sorted() == ["a"])
    }

    @Test("A torn write at the end is cut off, and what came before it stays")
    func tornTail() async throws {
        let (dir, path) = try Self.logDirectory()
        defer { dir.remove() }
        do {
            let journal = try LogJournal(directory: path)
            try await journal.opened(Fixture.header("a"))
            try await journal.append(contentsOf: [Self.line("a", 1), Self.line("a", 2)])
            journal.close()
        }
        // Half a record more, as an OS crash in the middle of a write can leave.
        let file = path + "/" + (try Self.segments(path).last ?? "")
        var extra: [UInt8] = []
        try LogRecord.entry(sessionId: "a", seq: 3, timestamp: 3, kind: "line", body: Array("xyz".utf8)).encode(into: &extra)
        let handle = try #require(FileHandle(forWritingAtPath: file))
        handle.seekToEndOfFile()
        handle.write(Data(extra.prefix(extra.count - 2)))
        handle.closeFile()
        let sizeBefore = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        let journal = try LogJournal(directory: path)
        defer { journal.close() }
        #expect(try await journal.entries(sessionId: "a").map(\.seq) == [1, 2])
        let sizeAfter = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        #expect(sizeAfter == sizeBefore - (extra.count - 2))
        // Writing goes on after the cut, and reads back.
        try await journal.append(Self.line("a", 3))
        #expect(try await journal.entries(sessionId: "a").map(\.seq) == [1, 2, 3])
    }

    @Test("Segments go from the log's start once no open session has rows there, and ended sessions stay ended after a restart")
    func segmentsOfEndedSessionsGo() async throws {
        let (dir, path) = try Self.logDirectory()
        defer { dir.remove() }
        do {
            let journal = try LogJournal(directory: path, segmentBytes: 4096)
            try await journal.opened(Fixture.header("long"))
            try await journal.append(Self.line("long", 1))
            for round in 0..<20 {
                let id = "short\(round)"
                try await journal.opened(Fixture.header(id))
                try await journal.append(contentsOf: (1...10).map { Self.line(id, $0) })
                await journal.closed(sessionId: id)
            }
            // The long session holds the first segment, so every later one stays too: they hold
            // the drops of sessions whose headers the first one holds.
            #expect(try Self.segments(path).count > 3)
            #expect(journal.usage.openSessions == 1)
            journal.close()
        }
        do {
            // Reopened (as after kill -9), only the long session is open.
            let journal = try LogJournal(directory: path, segmentBytes: 4096)
            #expect(try await journal.openSessions().map(\.sessionId) == ["long"])
            #expect(try await journal.entries(sessionId: "long").map(\.seq) == [1])
            await journal.closed(sessionId: "long")
            #expect(try Self.segments(path).count > 3, "segments went before the upkeep synced the drop")
            try journal.compact()
            #expect(try Self.segments(path).count == 1)
            journal.close()
        }
        let journal = try LogJournal(directory: path, segmentBytes: 4096)
        defer { journal.close() }
        #expect(try await journal.openSessions().isEmpty)
    }

    @Test("A segment written after one that lost its tail is not read: a rebuild sees a prefix of the log")
    func lostTailEndsTheLog() async throws {
        let (dir, path) = try Self.logDirectory()
        defer { dir.remove() }
        do {
            let journal = try LogJournal(directory: path, segmentBytes: 4096)
            try await journal.opened(Fixture.header("a"))
            for seq in 1...40 { try await journal.append(Self.line("a", seq)) }
            journal.close()
        }
        let files = try Self.segments(path)
        #expect(files.count >= 3)
        // An OS crash kept the second segment's file only up to a record boundary before its end
        // (its last record lost whole), while the third reached the disk.
        let second = path + "/" + files[1]
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: second)))
        let offsets = Self.recordEnds(bytes)
        let keep = offsets[offsets.count - 2]
        try Data(bytes.prefix(keep)).write(to: URL(fileURLWithPath: second))
        let journal = try LogJournal(directory: path, segmentBytes: 4096)
        defer { journal.close() }
        let seqs = try await journal.entries(sessionId: "a").map(\.seq)
        #expect(!seqs.isEmpty)
        #expect(seqs == Array(1...seqs.count), "a hole in the rebuilt session: \(seqs)")
        #expect(seqs.count < 40)
        #expect(try Self.segments(path).count == 3, "later segments were not replaced by one fresh segment")
        // And the log goes on from there.
        try await journal.append(Self.line("a", seqs.count + 1))
        #expect(try await journal.entries(sessionId: "a").map(\.seq) == Array(1...(seqs.count + 1)))
    }

    @Test("A long session's rows are copied forward out of old segments, and read back whole")
    func compaction() async throws {
        let (dir, path) = try Self.logDirectory()
        defer { dir.remove() }
        do {
            let journal = try LogJournal(directory: path, segmentBytes: 4096)
            try await journal.opened(Fixture.header("long"))
            var seq = 0
            for round in 0..<30 {
                seq += 1
                try await journal.append(Self.line("long", seq))
                let id = "short\(round)"
                try await journal.opened(Fixture.header(id))
                try await journal.append(contentsOf: (1...8).map { Self.line(id, $0) })
                await journal.closed(sessionId: id)
            }
            let before = try Self.segments(path).count
            #expect(before > LogJournal.keptSegments + 1)
            let deleted = try journal.compact(limit: 100)
            #expect(deleted > 0)
            #expect(try Self.segments(path).count <= LogJournal.keptSegments + 2)
            #expect(try await journal.entries(sessionId: "long").map(\.seq) == Array(1...30))
            journal.close()
        }
        // After a restart the copies and the rows left in later segments make the whole session.
        let journal = try LogJournal(directory: path, segmentBytes: 4096)
        defer { journal.close() }
        #expect(try await journal.openSessions().map(\.sessionId) == ["long"])
        #expect(try await journal.entries(sessionId: "long").map(\.seq) == Array(1...30))
    }

    @Test("A failed write throws for its appends, and the next one works")
    func failedWrite() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let journal = try LogJournal(directory: dir.file("journal.log"))
        defer { journal.close() }
        try await journal.opened(Fixture.header("a"))
        journal.failNextCommits = 1
        await #expect(throws: StorageError.self) { try await journal.append(Self.line("a", 1)) }
        try await journal.append(Self.line("a", 1))
        #expect(try await journal.entries(sessionId: "a").map(\.seq) == [1])
    }

    @Test("Sessions the store marked ended are dropped at start")
    func forgetEnded() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try SQLiteStore(path: dir.file())
        defer { store.close() }
        let journal = try LogJournal(directory: LogJournal.directory(besideStore: dir.file()))
        defer { journal.close() }
        for id in ["ended", "live"] {
            try await journal.opened(Fixture.header(id))
            try await journal.append(Self.line(id, 1))
        }
        _ = await store.save(Fixture.session("ended", endedAt: Day.mon23, users: [("ana", 10)]))
        #expect(try journal.forgetEnded(in: store.database) == 1)
        #expect(try await journal.openSessions().map(\.sessionId) == ["live"])
        #expect(try store.count("ended_sessions") == 0)
    }

    @Test("Open sessions move from the SQLite journal to the log and back, rows as they were")
    func exportImport() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let sqlite = try SQLiteJournal(path: dir.file("journal.sqlite"))
        defer { sqlite.close() }
        for id in ["a", "b"] {
            try await sqlite.opened(Fixture.header(id))
            try await sqlite.append(contentsOf: [Self.line(id, 1), Self.line(id, 2)])
        }
        await sqlite.closed(sessionId: "b")
        let exported = try sqlite.exportSessions()
        #expect(exported.map(\.sessionId) == ["a"])
        #expect(exported.first?.rows.map(\.seq) == [1, 2])
        let log = try LogJournal(directory: dir.file("journal.log"))
        defer { log.close() }
        try log.importSessions(exported)
        try log.importSessions(exported)  // a move repeated after a crash changes nothing
        #expect(try await log.openSessions() == [Fixture.header("a")])
        #expect(try await log.entries(sessionId: "a") == [Self.line("a", 1), Self.line("a", 2)])
        #expect(try log.exportSessions() == exported)
        let back = try SQLiteJournal(path: dir.file("back.sqlite"))
        defer { back.close() }
        try back.importSessions(try log.exportSessions())
        #expect(try back.entries(sessionId: "a") == [Self.line("a", 1), Self.line("a", 2)])
        #expect(try back.exportSessions() == exported)
    }
}
