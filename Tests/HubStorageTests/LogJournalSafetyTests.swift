import Dispatch
import Foundation
import HubDomain
@testable import HubStorage
import Synchronization
import Testing

/// What makes the log journal safe to be the default: nothing is deleted before the writes that
/// made it unneeded are synced, a failed sync is fatal, the log is synced in the background,
/// recovery sets aside (and says) what it does not read, a damaged segment fails loudly, and only
/// one journal writes a directory. Real files in a temporary directory.
@Suite("Log journal safety")
struct LogJournalSafetyTests {
    static func line(_ sessionId: String, _ seq: Int) -> JournalEntry {
        SQLiteJournalFileTests.line(sessionId, seq)
    }

    /// Messages a journal told its `onFailure`.
    final class Failures: Sendable {
        private let messages = Mutex<[String]>([])
        var all: [String] { messages.withLock { $0 } }
        var handler: @Sendable (String) -> Void { { message in self.messages.withLock { $0.append(message) } } }
    }

    /// Whether `condition` holds within `seconds`, polling every 20 ms.
    static func eventually(within seconds: Double, _ condition: () -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    /// Sessions opened, given `rows` entries and closed until the journal has `segments` segments.
    static func fill(_ journal: LogJournal, toSegments segments: Int, prefix: String = "short") async throws {
        var round = 0
        while journal.usage.segments < segments {
            let id = "\(prefix)\(round)"
            try await journal.opened(Fixture.header(id))
            try await journal.append(contentsOf: (1...4).map { line(id, $0) })
            await journal.closed(sessionId: id)
            round += 1
        }
    }

    /// Waits until the background syncs of what was written are done (none for two intervals).
    static func settle(_ journal: LogJournal) async throws {
        var last = -1
        while journal.syncCount != last {
            last = journal.syncCount
            try await Task.sleep(for: LogJournal.syncInterval * 2)
        }
    }

    /// Runs `compact()` on a thread outside the cooperative pool (its test hook blocks).
    static func compactOffThePool(_ journal: LogJournal) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try journal.compact() }) }
        }
    }

    @Test("A segment freed by a drop written during the upkeep's sync stays until the next pass (B1)")
    func dropDuringCompactionWaitsForTheNextSync() async throws {
        let (dir, path) = try LogJournalTests.logDirectory()
        defer { dir.remove() }
        let journal = try LogJournal(directory: path, segmentBytes: 4096)
        defer { journal.close() }
        // "x" holds the first segment; the ended sessions after it free the rest but the last.
        try await journal.opened(Fixture.header("x"))
        try await journal.append(Self.line("x", 1))
        try await Self.fill(journal, toSegments: 3)
        #expect(journal.usage.segments <= LogJournal.keptSegments, "the test wants no compaction targets")
        let before = try LogJournalTests.segments(path)
        // x ends after the pass synced the log and before it deletes anything: its drop is not on
        // the disk yet, so the segments it frees must stay.
        journal.compactionDidSync = {
            let done = DispatchSemaphore(value: 0)
            Task {
                await journal.closed(sessionId: "x")
                done.signal()
            }
            done.wait()
        }
        #expect(try await Self.compactOffThePool(journal) == 0)
        #expect(try LogJournalTests.segments(path) == before, "segments went before the drop that freed them was synced")
        journal.compactionDidSync = nil
        // The next pass syncs that drop first, then deletes them.
        #expect(try await Self.compactOffThePool(journal) >= 2)
        #expect(try LogJournalTests.segments(path).count < before.count)
        #expect(try await journal.openSessions().isEmpty)
    }

    @Test("Recovery deletes no segment: the upkeep does, after a sync (B2)")
    func recoveryDeletesNothing() async throws {
        let (dir, path) = try LogJournalTests.logDirectory()
        defer { dir.remove() }
        do {
            let journal = try LogJournal(directory: path, segmentBytes: 4096)
            try await Self.fill(journal, toSegments: 4)
            journal.close()
        }
        let before = try LogJournalTests.segments(path)
        #expect(before.count >= 4)
        let journal = try LogJournal(directory: path, segmentBytes: 4096)
        defer { journal.close() }
        #expect(try LogJournalTests.segments(path) == before, "recovery deleted segments its drops freed before any sync")
        #expect(journal.recovery.isEmpty)
        #expect(try journal.compact() == before.count - 1)
        #expect(try LogJournalTests.segments(path).count == 1)
    }

    @Test("A failed background sync breaks the journal: later appends, syncs and compaction fail, and it is told (B3)")
    func failedBackgroundSyncIsFatal() async throws {
        let (dir, path) = try LogJournalTests.logDirectory()
        defer { dir.remove() }
        let failures = Failures()
        do {
            let journal = try LogJournal(directory: path, onFailure: failures.handler)
            defer { journal.close() }
            try await journal.opened(Fixture.header("a"))
            try await journal.append(Self.line("a", 1))
            try await Self.settle(journal)
            journal.failNextSyncs = 1
            try await journal.append(Self.line("a", 2))  // written; its background sync fails
            #expect(try await Self.eventually(within: 5) { journal.failure != nil }, "the failed sync was swallowed")
            await #expect(throws: StorageError.self) { try await journal.append(Self.line("a", 3)) }
            #expect(throws: StorageError.self) { try journal.compact() }
            #expect(throws: StorageError.self) { try journal.importSessions(try journal.exportSessions()) }
            #expect(failures.all.count == 1)
            #expect(failures.all.first?.contains("sync") == true)
            // Reading what was written still works.
            #expect(try await journal.entries(sessionId: "a").map(\.seq) == [1, 2])
        }
        // A restart reads the log again and writes on.
        let journal = try LogJournal(directory: path)
        defer { journal.close() }
        #expect(journal.failure == nil)
        try await journal.append(Self.line("a", 3))
        #expect(try await journal.entries(sessionId: "a").map(\.seq) == [1, 2, 3])
    }

    @Test("The directory is synced once a segment was made since its last sync, and not otherwise (R1)")
    func directorySyncedAfterNewSegments() async throws {
        let (dir, path) = try LogJournalTests.logDirectory()
        defer { dir.remove() }
        let journal = try LogJournal(directory: path, segmentBytes: 4096)
        defer { journal.close() }
        // The first segment was made at open: the first full sync takes the directory too.
        try journal.compact()
        #expect(journal.directorySyncCount == 1)
        try journal.compact()
        #expect(journal.directorySyncCount == 1, "a directory sync without a new segment")
        try await Self.fill(journal, toSegments: 2)
        try journal.compact()
        let afterRotation = journal.directorySyncCount
        #expect(afterRotation == 2, "a segment made since the last directory sync, and no sync of it")
        try journal.importSessions([])
        try journal.compact()
        #expect(journal.directorySyncCount == afterRotation)
    }

    @Test("Written segments are synced in the background about every syncInterval, and an idle journal is not (R3)")
    func backgroundSync() async throws {
        let (dir, path) = try LogJournalTests.logDirectory()
        defer { dir.remove() }
        let journal = try LogJournal(directory: path)
        defer { journal.close() }
        #expect(journal.syncCount == 0)
        try await journal.opened(Fixture.header("a"))
        try await journal.append(Self.line("a", 1))
        #expect(try await Self.eventually(within: 5) { journal.syncCount >= 1 }, "no background sync after a write")
        // Idle: nothing more to sync.
        try await Self.settle(journal)
        let synced = journal.syncCount
        try await Task.sleep(for: LogJournal.syncInterval * 3)
        #expect(journal.syncCount == synced, "an idle journal synced")
        // Writes again: synced again, at most once per interval however many writes (on a
        // loaded machine the writes themselves may span several intervals: the bound counts them).
        let clock = ContinuousClock()
        let start = clock.now
        for seq in 2...20 { try await journal.append(Self.line("a", seq)) }
        #expect(try await Self.eventually(within: 5) { journal.syncCount > synced })
        try await Task.sleep(for: LogJournal.syncInterval * 3)
        let intervals = Int((clock.now - start) / LogJournal.syncInterval) + 1
        #expect(journal.syncCount - synced <= intervals,
                "more than one background sync per interval: \(journal.syncCount - synced) in \(intervals) intervals")
    }

    @Test("close() syncs what was written (N5)")
    func closeSyncs() async throws {
        let (dir, path) = try LogJournalTests.logDirectory()
        defer { dir.remove() }
        let journal = try LogJournal(directory: path)
        try await journal.opened(Fixture.header("a"))
        try await journal.append(Self.line("a", 1))
        journal.close()
        #expect(journal.syncCount >= 1)
    }

    @Test("A segment recovery read whole that no longer decodes to its end fails reads and compaction, and nothing goes (R5)")
    func damagedSegmentFailsLoudly() async throws {
        let (dir, path) = try LogJournalTests.logDirectory()
        defer { dir.remove() }
        do {
            let journal = try LogJournal(directory: path, segmentBytes: 4096)
            try await journal.opened(Fixture.header("long"))
            for round in 0..<30 {
                try await journal.append(Self.line("long", round + 1))
                let id = "short\(round)"
                try await journal.opened(Fixture.header(id))
                try await journal.append(contentsOf: (1...8).map { Self.line(id, $0) })
                await journal.closed(sessionId: id)
            }
            journal.close()
        }
        let journal = try LogJournal(directory: path, segmentBytes: 4096)
        defer { journal.close() }
        #expect(journal.recovery.isEmpty)
        #expect(try await journal.entries(sessionId: "long").map(\.seq) == Array(1...30))
        // A byte of the first segment's third record goes bad on the disk after the start.
        let files = try LogJournalTests.segments(path)
        let first = path + "/" + files[0]
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: first)))
        let ends = LogJournalTests.recordEnds(bytes)
        #expect(ends.count > 4)
        let handle = try #require(FileHandle(forUpdatingAtPath: first))
        handle.seek(toFileOffset: UInt64(ends[1] + 10))
        handle.write(Data([bytes[ends[1] + 10] ^ 0x55]))
        handle.closeFile()
        await #expect(throws: StorageError.self) { try await journal.entries(sessionId: "long") }
        #expect(throws: StorageError.self) { try journal.compact(limit: 100) }
        #expect(try LogJournalTests.segments(path) == files, "a segment went although its rows could not be copied")
    }

    @Test("Recovery sets aside what it does not read, in quarantine/, and reports it (R6)")
    func recoveryReportsWhatItSetAside() async throws {
        let (dir, path) = try LogJournalTests.logDirectory()
        defer { dir.remove() }
        do {
            let journal = try LogJournal(directory: path, segmentBytes: 4096)
            try await journal.opened(Fixture.header("a"))
            for seq in 1...60 { try await journal.append(Self.line("a", seq)) }
            journal.close()
        }
        do {
            let journal = try LogJournal(directory: path, segmentBytes: 4096)
            #expect(journal.recovery.isEmpty, "a clean stop left something to set aside")
            journal.close()
        }
        let files = try LogJournalTests.segments(path)
        #expect(files.count >= 4)
        // The second segment loses its last record; half a record more ends the first.
        let second = path + "/" + files[1]
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: second)))
        let ends = LogJournalTests.recordEnds(bytes)
        let torn = Array(bytes[ends[ends.count - 2]..<(ends[ends.count - 2] + 7)])
        try Data(bytes.prefix(ends[ends.count - 2]) + torn).write(to: URL(fileURLWithPath: second))
        var later = 0
        for name in files.dropFirst(2) {
            later += try #require(try FileManager.default.attributesOfItem(atPath: path + "/" + name)[.size] as? Int)
        }
        let journal = try LogJournal(directory: path, segmentBytes: 4096)
        defer { journal.close() }
        let report = journal.recovery
        #expect(report.bytesCut == torn.count)
        #expect(report.segmentsSetAside == Array(files.dropFirst(2)))
        #expect(report.bytesSetAside == later)
        let quarantine = try #require(report.quarantine)
        let kept = try FileManager.default.contentsOfDirectory(atPath: quarantine).sorted()
        #expect(Set(kept) == Set(files.dropFirst(2) + [files[1] + ".tail-at-\(ends[ends.count - 2])"]))
        let tail = try [UInt8](Data(contentsOf: URL(fileURLWithPath: quarantine + "/" + files[1] + ".tail-at-\(ends[ends.count - 2])")))
        #expect(tail == torn)
        let seqs = try await journal.entries(sessionId: "a").map(\.seq)
        #expect(seqs == Array(1...seqs.count))
    }

    @Test("A second journal on the same directory fails to open, naming it, until the first closes (R7)")
    func oneJournalPerDirectory() async throws {
        let (dir, path) = try LogJournalTests.logDirectory()
        defer { dir.remove() }
        let first = try LogJournal(directory: path)
        try await first.opened(Fixture.header("a"))
        do {
            let second = try LogJournal(directory: path)
            second.close()
            Issue.record("a second journal opened the directory")
        } catch let error as StorageError {
            #expect(error.message.contains(path))
            #expect(error.message.contains("in use"))
        }
        #expect(try LogJournalTests.segments(path).count == 1)
        first.close()
        let again = try LogJournal(directory: path)
        defer { again.close() }
        #expect(try await again.openSessions().map(\.sessionId) == ["a"])
    }

    @Test("A file whose name is not a segment's exact name is not read as one (N1)")
    func strayFileIsNotASegment() async throws {
        let (dir, path) = try LogJournalTests.logDirectory()
        defer { dir.remove() }
        do {
            let journal = try LogJournal(directory: path)
            try await journal.opened(Fixture.header("a"))
            try await journal.append(contentsOf: [Self.line("a", 1), Self.line("a", 2)])
            journal.close()
        }
        let real = try LogJournalTests.segments(path)
        for stray in ["journal-1.log", "journal-+00000001.log", "journal--1.log"] {
            #expect(FileManager.default.createFile(atPath: path + "/" + stray, contents: Data("junk".utf8)))
        }
        let journal = try LogJournal(directory: path)
        defer { journal.close() }
        #expect(journal.recovery.isEmpty)
        #expect(try await journal.entries(sessionId: "a").map(\.seq) == [1, 2])
        #expect(Set(try LogJournalTests.segments(path)).isSuperset(of: real))
    }

    @Test("A header after a drop opens the session again, after a restart as when written (N2)")
    func headerAfterDropReopens() async throws {
        let (dir, path) = try LogJournalTests.logDirectory()
        defer { dir.remove() }
        do {
            let journal = try LogJournal(directory: path, segmentBytes: 4096)
            try await journal.opened(Fixture.header("a"))
            await journal.closed(sessionId: "a")
            try await journal.opened(Fixture.header("a"))  // moved in again (a repeated switch)
            try await Self.fill(journal, toSegments: 2, prefix: "other")
            try await journal.append(Self.line("a", 1))  // in a later segment than the header
            #expect(try await journal.entries(sessionId: "a").map(\.seq) == [1])
            journal.close()
        }
        let journal = try LogJournal(directory: path, segmentBytes: 4096)
        defer { journal.close() }
        #expect(try await journal.openSessions().map(\.sessionId) == ["a"])
        #expect(try await journal.entries(sessionId: "a").map(\.seq) == [1])
    }

    @Test("A segment that cannot be made is counted and told once, and writing goes on (N4)")
    func failedRotationIsReported() async throws {
        let (dir, path) = try LogJournalTests.logDirectory()
        defer { dir.remove() }
        let failures = Failures()
        let journal = try LogJournal(directory: path, segmentBytes: 4096, onFailure: failures.handler)
        defer { journal.close() }
        // The next segment's name is taken (by a directory): it cannot be made.
        let next = path + "/" + LogSegment.fileName(2)
        try FileManager.default.createDirectory(atPath: next, withIntermediateDirectories: false)
        try await journal.opened(Fixture.header("a"))
        for seq in 1...60 { try await journal.append(Self.line("a", seq)) }
        #expect(journal.usage.segments == 1)
        #expect(journal.failedRotations > 1)
        #expect(failures.all.count == 1)
        #expect(failures.all.first?.contains("segment") == true)
        try FileManager.default.removeItem(atPath: next)
        try await journal.append(Self.line("a", 61))
        #expect(journal.usage.segments == 2)
        #expect(try await journal.entries(sessionId: "a").map(\.seq) == Array(1...61))
    }
}
