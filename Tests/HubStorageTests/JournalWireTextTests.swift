import Foundation
import HubDomain
import HubProtocol
@testable import HubStorage
@testable import HubStoragePostgres
import Testing

/// Encode once: an entry that carries its broadcast's wire text is stored as exactly that text
/// and read back through the wire decoder, beside rows in the older stored-event form.
@Suite("Journal rows as wire text")
struct JournalWireTextTests {
    /// The journaled kinds (every event but `ended`), each with the text members receive.
    static func wireEntries(session: String) -> [JournalEntry] {
        SQLiteJournalTests.events(session: session).filter {
            if case .ended = $0 { return false }
            return true
        }.enumerated().map { index, event in
            let text = ServerMessageEncoder.broadcast(SessionEnvelope(sessionId: session, seq: index + 1, event: event))
            return JournalEntry(sessionId: session, seq: index + 1, timestamp: 100 + Int64(index), event: event,
                                text: Array(text.utf8))
        }
    }

    /// What a journal returns for `entries`: the same events, without the text.
    static func readBack(_ entries: [JournalEntry]) -> [JournalEntry] {
        entries.map { JournalEntry(sessionId: $0.sessionId, seq: $0.seq, timestamp: $0.timestamp, event: $0.event) }
    }

    @Test("SQLite stores the wire text byte for byte and reads every kind back with the decoder")
    func sqliteStoresTheWireText() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let journal = try SQLiteJournal(path: dir.file(), decoder: BroadcastDecoder())
        let entries = Self.wireEntries(session: "s1")
        try await journal.opened(Fixture.header("s1"))
        for entry in entries { try await journal.append(entry) }
        let bodies = try journal.database.withConnection { db in
            try db.query("SELECT body FROM journal WHERE session_id = 's1' ORDER BY seq") { [UInt8]($0.data(0)) }
        }
        #expect(bodies == entries.map { $0.text ?? [] })
        #expect(try journal.entries(sessionId: "s1") == Self.readBack(entries))
        journal.close()
    }

    @Test("Rows in the older form and wire rows read back side by side, in seq order")
    func mixedRows() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let journal = try SQLiteJournal(path: dir.file(), decoder: BroadcastDecoder())
        let wire = Self.wireEntries(session: "s1")
        // Odd seqs as they were written before wire text (no text), even seqs as wire text.
        let mixed = wire.map { entry in
            entry.seq % 2 == 1 ? Self.readBack([entry])[0] : entry
        }
        try await journal.opened(Fixture.header("s1"))
        for entry in mixed { try await journal.append(entry) }
        #expect(try journal.entries(sessionId: "s1") == Self.readBack(wire))
        journal.close()
    }

    @Test("A journal opened without a decoder refuses wire rows with a clear error instead of guessing")
    func noDecoder() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file()
        let writer = try SQLiteJournal(path: path, decoder: BroadcastDecoder())
        try await writer.opened(Fixture.header("s1"))
        try await writer.append(Self.wireEntries(session: "s1")[1])
        writer.close()
        let reader = try SQLiteJournal(path: path)
        #expect(throws: StorageError.self) { try reader.entries(sessionId: "s1") }
        reader.close()
    }

    @Test("PostgreSQL stores the wire text as is and reads every kind back",
          .enabled(if: PostgresTestDatabase.available))
    func postgresStoresTheWireText() async throws {
        try await PostgresTestDatabase.with { pool in
            let journal = PostgresJournal(pool: pool, nodeId: "n1", decoder: BroadcastDecoder())
            try await journal.opened(PostgresJournalTests.header("s1"))
            let entries = Self.wireEntries(session: "s1")
            for entry in entries { try await journal.append(entry) }
            let restarted = PostgresJournal(pool: pool, nodeId: "n1", decoder: BroadcastDecoder())
            #expect(try await restarted.entries(sessionId: "s1") == Self.readBack(entries))
        }
    }
}
