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

            // Every commit fails until the test lets them through again (a fixed count could be
            // used up by the session's retries on a slow machine before Ben's line arrives). Ana's
            // line is refused: either its own write failed (the session holds it and writes it
            // again on each tick) or an earlier change's did (a stats tick: the session holds that
            // and refuses the line up front).
            journal.failNextCommits = 1_000_000
            ana.send(["type": "say", "id": "s1", "clientId": "c-1", "textNative": "Un café, por favor."])
            let refused = try #require(await ana.expect("error"))
            #expect(refused.string("code") == "journal_unavailable")
            #expect(refused.string("ref") == "s1")
            #expect(refused.int("retryAfter") == 1)
            ben.send(["type": "say", "id": "b1", "textNative": "¿Algo más?"])
            let held = try #require(await ben.expect("error"))
            #expect(held.string("code") == "journal_unavailable", "the session refuses new lines while it holds changes")
            #expect(held.string("ref") == "b1")
            journal.failNextCommits = 0

            // Ana sends the line again with the same clientId until it is acknowledged: whether it
            // was held or refused, it ends up in the session exactly once.
            var acknowledged = false
            for attempt in 0..<60 where !acknowledged {
                try await Task.sleep(for: .milliseconds(250))
                ana.send(["type": "say", "id": "r\(attempt)", "clientId": "c-1", "textNative": "Un café, por favor."])
                guard let answer = await ana.nextMessage(seconds: 10) else { break }
                switch (answer.type, answer.string("code")) {
                case ("line", _), ("error", "duplicate_line"): acknowledged = true
                case ("error", "journal_unavailable"): continue
                default: Issue.record("unexpected \(answer.text)")
                }
            }
            #expect(acknowledged)
            ben.send(["type": "say", "id": "b2", "textNative": "¿Algo más?"])
            var benLines: [String] = []
            while let message = await ben.nextMessage(seconds: 5) {
                guard message.type == "line" else { continue }
                benLines.append(message.object("line")?.string("clientId") ?? "-")
                if message.string("ref") == "b2" { break }
            }
            #expect(benLines == ["c-1", "-"], "ben saw ana's line once, then his own: \(benLines)")
            ana.send(["type": "say", "id": "s9", "clientId": "c-1", "textNative": "Un café, por favor."])
            #expect(try #require(await ana.expect("error")).string("code") == "duplicate_line")
        }
    }
}
