import Foundation
import HubDomain
import HubStorage
import Logging
import SessionHubServer
import Testing

/// Over real sockets on a real SQLite journal: a line whose journal commit failed is answered
/// `journal_unavailable`, is not broadcast until the journal takes it, and a resend with the same
/// `clientId` is not recorded twice (issue 10, item 2).
@Suite("Journal failures over WebSocket", .timeLimit(.minutes(2)))
struct JournalFailureIntegrationTests {
    @Test func aRefusedLineIsHeldThenDeliveredOnceAndNotDuplicatedByAResend() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("journal-failure-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try SQLiteStore(path: dir + "/sessionhub.sqlite")
        let journal = SQLiteJournal(database: store.database)
        let persistence = HubPersistence(journal: journal, history: store, learners: store,
                                         stores: HubStores(profiles: store, history: store, progress: store),
                                         close: { journal.close(); store.close() })
        try await HubTestServer.with(persistence: persistence) { port, _ in
            let ana = try await HubTestClient.connect(port: port, token: HubTestServer.token("ana"))
            _ = try #require(await ana.expect("welcome"))
            ana.send(["type": "host", "id": "h", "scenarioId": "ordering-coffee"])
            let code = try #require(await ana.expect("joined")?.object("session")?.string("joinCode"))
            let ben = try await HubTestClient.connect(port: port, token: HubTestServer.token("ben"))
            _ = try #require(await ben.expect("welcome"))
            ben.send(["type": "join", "id": "j", "code": code])
            _ = try #require(await ben.expect("joined"))
            _ = try #require(await ana.expect("participants"))

            // The next two commits fail: the line is refused, held, and written again by the
            // session's clock about once a second (the third try succeeds).
            journal.failNextCommits = 2
            ana.send(["type": "say", "id": "s1", "clientId": "c-1", "textNative": "Un café, por favor."])
            let refused = try #require(await ana.expect("error"))
            #expect(refused.string("code") == "journal_unavailable")
            #expect(refused.string("ref") == "s1")
            #expect(refused.int("retryAfter") == 1)
            ben.send(["type": "say", "id": "b1", "textNative": "¿Algo más?"])
            let held = try #require(await ben.expect("error"))
            #expect(held.string("code") == "journal_unavailable", "the session refuses new lines while it holds one")

            // Once the journal works, both see the held line, once, with its clientId.
            for client in [ana, ben] {
                let line = try #require(await client.expect("line", seconds: 10))
                #expect(line.object("line")?.string("clientId") == "c-1")
                #expect(line.object("line")?.string("textNative") == "Un café, por favor.")
            }
            ana.send(["type": "say", "id": "s2", "clientId": "c-1", "textNative": "Un café, por favor."])
            let duplicate = try #require(await ana.expect("error"))
            #expect(duplicate.string("code") == "duplicate_line")
            #expect(duplicate.string("ref") == "s2")
            ben.send(["type": "say", "id": "b2", "textNative": "¿Algo más?"])
            #expect(try #require(await ben.expect("line")).string("ref") == "b2")
            #expect(journal.failNextCommits == 0)
        }
    }
}
