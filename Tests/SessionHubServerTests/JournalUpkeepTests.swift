import Foundation
import HubDomain
import HubStorage
import Logging
@testable import SessionHubServer
import Synchronization
import Testing

/// The storage's upkeep and start with the log journal: each upkeep step runs whatever the other
/// did, what recovery set aside is logged as a warning, and a hub never takes over a log
/// journal another one has open.
@Suite("Journal upkeep")
struct JournalUpkeepTests {
    /// Log lines a test's logger wrote (JSON).
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        var logger: Logger {
            Logger(label: "test") { JSONLogHandler(label: $0, level: .info, sink: JSONLogHandler.Sink { line in
                self.lines.withLock { $0.append(line) }
            }) }
        }
    }

    static func directory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("journal-upkeep-\(UUID().uuidString)").path
    }

    @Test("The upkeep tidies the journal even when dropping ended sessions fails (R4)")
    func tidyRunsWhenForgetEndedFails() async throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/sessionhub.sqlite"
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        let journal = try LogJournal(directory: LogJournal.directory(besideStore: path), segmentBytes: 4096)
        defer { journal.close() }
        var round = 0
        while journal.usage.segments < 4 {
            let header = SessionHeader(sessionId: "s\(round)", scenarioId: "ordering-coffee", joinCode: nil, maxPlayers: 4,
                                       startedAt: 1_000)
            try await journal.opened(header)
            try await journal.append(contentsOf: (1...4).map { JournalSwitchTests.entry($0, in: header.sessionId) })
            await journal.closed(sessionId: header.sessionId)
            round += 1
        }
        // The markers' table is gone: forgetEnded fails at every pass.
        try store.database.withConnection { try $0.execute("DROP TABLE ended_sessions") }
        #expect(throws: (any Error).self) { try journal.forgetEnded(in: store.database) }
        let lines = Lines()
        JournalUpkeep.run(journal, store: store.database, logger: lines.logger)
        #expect(journal.usage.segments == 1, "tidy did not run after forgetEnded failed")
        #expect(lines.all.count == 1)
        #expect(lines.all.first?.contains("forget_ended") == true)
    }

    @Test("What the log journal's recovery set aside is logged as a warning at start (R6)")
    func recoveryIsLogged() async throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/sessionhub.sqlite"
        var persistence = try HubPersistence.sqlite(path: path, logger: Logger(label: "test"), journal: .log)
        try await persistence.journal.opened(JournalSwitchTests.header)
        try await persistence.journal.append(JournalSwitchTests.entry(1))
        await persistence.close?()
        // A torn write at the end, as an OS crash leaves.
        let logDirectory = LogJournal.directory(besideStore: path)
        let segment = try #require(try FileManager.default.contentsOfDirectory(atPath: logDirectory)
            .filter { $0.hasPrefix("journal-") }.max())
        let handle = try #require(FileHandle(forWritingAtPath: logDirectory + "/" + segment))
        handle.seekToEndOfFile()
        handle.write(Data([1, 2, 3, 4, 5]))
        handle.closeFile()
        let lines = Lines()
        persistence = try HubPersistence.sqlite(path: path, logger: lines.logger, journal: .log)
        let warning = try #require(lines.all.first { $0.contains("journal recovery set data aside") })
        #expect(warning.contains("\"level\":\"warning\""))
        #expect(warning.contains("\"bytes_cut\":\"5\""))
        let journal = try #require(persistence.journal as? any RecoverableJournal)
        #expect(try await journal.entries(sessionId: JournalSwitchTests.header.sessionId).map(\.seq) == [1])
        await persistence.close?()
        // A clean stop: nothing to say.
        let quiet = Lines()
        persistence = try HubPersistence.sqlite(path: path, logger: quiet.logger, journal: .log)
        #expect(!quiet.all.contains { $0.contains("journal recovery") })
        await persistence.close?()
    }

    @Test("A hub started with --journal sqlite beside a running log journal fails and leaves it alone (R7)")
    func liveLogJournalIsNotTakenOver() async throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/sessionhub.sqlite"
        let running = try HubPersistence.sqlite(path: path, logger: Logger(label: "test"), journal: .log)
        try await running.journal.opened(JournalSwitchTests.header)
        try await running.journal.append(JournalSwitchTests.entry(1))
        let logDirectory = LogJournal.directory(besideStore: path)
        #expect(throws: StorageError.self) {
            _ = try HubPersistence.sqlite(path: path, logger: Logger(label: "test"), journal: .sqlite)
        }
        #expect(FileManager.default.fileExists(atPath: logDirectory))
        try await running.journal.append(JournalSwitchTests.entry(2))
        let journal = try #require(running.journal as? any RecoverableJournal)
        #expect(try await journal.entries(sessionId: JournalSwitchTests.header.sessionId).map(\.seq) == [1, 2])
        await running.close?()
    }
}
