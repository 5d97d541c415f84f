import Foundation
import HubDomain
import HubStorage
import Logging
@testable import SessionHubServer
import Testing

/// `serve --journal sqlite|log` can change between restarts: the open sessions move into the
/// journal in use, and the other one's file or directory goes.
@Suite("Switching journals")
struct JournalSwitchTests {
    static let header = SessionHeader(sessionId: "0123456789abcdef0123456789abcdef", scenarioId: "ordering-coffee",
                                      joinCode: nil, maxPlayers: 4, startedAt: 1_000)

    static func entry(_ seq: Int, in sessionId: String = header.sessionId) -> JournalEntry {
        let line = DialogLine(id: "l\(seq)", speakerId: "ana", roleName: "Barista", textNative: "Un café \(seq)",
                              textTranslated: "A coffee \(seq)", timestamp: Int64(1_000 + seq))
        return JournalEntry(sessionId: sessionId, seq: seq, timestamp: Int64(1_000 + seq), event: .line(line, ref: "q\(seq)"))
    }

    @Test("An open session moves from SQLite to the log and back, its entries whole")
    func roundTrip() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("journal-switch-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/sessionhub.sqlite"
        let logger = Logger(label: "test")
        let sqlitePath = SQLiteJournal.path(besideStore: path)
        let logDirectory = LogJournal.directory(besideStore: path)

        var persistence = try HubPersistence.sqlite(path: path, logger: logger, journal: .sqlite)
        try await persistence.journal.opened(Self.header)
        try await persistence.journal.append(contentsOf: [Self.entry(1), Self.entry(2)])
        await persistence.close?()
        #expect(FileManager.default.fileExists(atPath: sqlitePath))

        persistence = try HubPersistence.sqlite(path: path, logger: logger, journal: .log)
        #expect(!FileManager.default.fileExists(atPath: sqlitePath), "the SQLite journal was not deleted")
        #expect(FileManager.default.fileExists(atPath: logDirectory))
        var journal = try #require(persistence.journal as? any RecoverableJournal)
        #expect(try await journal.openSessions() == [Self.header])
        #expect(try await journal.entries(sessionId: Self.header.sessionId).map(\.seq) == [1, 2])
        try await persistence.journal.append(Self.entry(3))
        await persistence.close?()

        persistence = try HubPersistence.sqlite(path: path, logger: logger, journal: .sqlite)
        #expect(!FileManager.default.fileExists(atPath: logDirectory), "the log journal was not deleted")
        journal = try #require(persistence.journal as? any RecoverableJournal)
        #expect(try await journal.openSessions() == [Self.header])
        #expect(try await journal.entries(sessionId: Self.header.sessionId) == [Self.entry(1), Self.entry(2), Self.entry(3)].map {
            JournalEntry(sessionId: $0.sessionId, seq: $0.seq, timestamp: $0.timestamp, event: $0.event)
        })
        await persistence.close?()
    }

    @Test("The default journal is the log; a node that ran on the SQLite journal moves into it at start")
    func defaultIsTheLog() async throws {
        #expect(JournalKind.default == .log)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("journal-default-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/sessionhub.sqlite"
        let logger = Logger(label: "test")
        let sqlitePath = SQLiteJournal.path(besideStore: path)
        let logDirectory = LogJournal.directory(besideStore: path)

        // A node of the old default (the SQLite journal), stopped with a session open.
        var persistence = try HubPersistence.sqlite(path: path, logger: logger, journal: .sqlite)
        try await persistence.journal.opened(Self.header)
        try await persistence.journal.append(contentsOf: [Self.entry(1), Self.entry(2)])
        await persistence.close?()

        // Started again without naming a journal: the log, holding the session.
        persistence = try HubPersistence.sqlite(path: path, logger: logger)
        #expect(persistence.journal is LogJournal)
        #expect(FileManager.default.fileExists(atPath: logDirectory))
        #expect(!FileManager.default.fileExists(atPath: sqlitePath), "the SQLite journal was not deleted")
        let journal = try #require(persistence.journal as? any RecoverableJournal)
        #expect(try await journal.openSessions() == [Self.header])
        #expect(try await journal.entries(sessionId: Self.header.sessionId).map(\.seq) == [1, 2])
        await persistence.close?()
    }
}
