import Foundation
import HubDomain
import HubStorage
import SessionHubServer
import Testing

/// The real server on a real SQLite file: sessions played over WebSocket end up in premium
/// players' history, which the HTTP API serves only to its owner.
@Suite("History API on SQLite", .timeLimit(.minutes(2)))
struct HistoryAPIIntegrationTests {
    /// A fresh database path in a temporary directory.
    private static func databasePath() -> (path: String, remove: @Sendable () -> Void) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hub-api-\(UUID().uuidString)").path
        return (dir + "/data/sessionhub.sqlite", { try? FileManager.default.removeItem(atPath: dir) })
    }

    private static func sqlite(_ path: String) throws -> HubPersistence {
        try HubPersistence.sqlite(path: path, logger: .init(label: "test"))
    }

    private func setPremium(_ port: Int, _ user: String, _ on: Bool) async throws {
        let reply = try await HTTPTestClient.request("PUT", port: port, "/admin/users/\(user)/premium",
                                                     token: HubTestServer.token("ops", admin: true), body: ["isPremium": on])
        #expect(reply.status == 200)
        #expect(reply.json?["isPremium"] as? Bool == on)
    }

    /// Plays a solo session of `lines` lines for `user`; returns the session id and the `ended` figures.
    private func playSolo(_ port: Int, _ user: String, lines: [String]) async throws -> (String, JSONObject) {
        let client = try await HubTestClient.connect(port: port, token: HubTestServer.token(user))
        _ = try #require(await client.expect("welcome"))
        client.send(["type": "startSolo", "id": "s", "scenarioId": "ordering-coffee"])
        let joined = try #require(await client.expect("joined"))
        let sessionId = try #require(joined.object("session")?.string("sessionId"))
        for (index, text) in lines.enumerated() {
            client.send(["type": "say", "id": "l\(index)", "textNative": text, "textTranslated": ""])
            #expect(try #require(await client.expect("line")).string("ref") == "l\(index)")
        }
        client.send(["type": "end", "id": "e"])
        let ended = try #require(await client.expect("ended"))
        let me = try #require(ended.objects("participants").first)
        client.drop()
        return (sessionId, me)
    }

    @Test func premiumHistoryIsSavedListedReadAndDeletedByItsOwnerOnly() async throws {
        let (path, remove) = Self.databasePath()
        defer { remove() }
        try await HubTestServer.with(persistence: try Self.sqlite(path)) { port, _ in
            try await setPremium(port, "pia", true)
            let (sessionId, me) = try await playSolo(port, "pia", lines: ["Hola", "Un café con leche, por favor"])
            #expect(me.object("history")?.string("status") == "Success")
            let xp = try #require(me.object("stats")?.int("xpEarned"))

            let token = HubTestServer.token("pia")
            let list = try await HTTPTestClient.request("GET", port: port, "/api/history?limit=10", token: token)
            #expect(list.status == 200)
            #expect(list.json?["total"] as? Int == 1)
            let summaries = try #require(list.json?["sessions"] as? [[String: Any]])
            #expect(summaries.first?["sessionId"] as? String == sessionId)

            let full = try await HTTPTestClient.request("GET", port: port, "/api/history/\(sessionId)", token: token)
            #expect(full.status == 200)
            let lines = try #require(full.json?["dialogLines"] as? [[String: Any]])
            #expect(lines.map { $0["textNative"] as? String } == ["Hola", "Un café con leche, por favor"])
            #expect(lines.map { $0["speakerId"] as? String } == ["pia", "pia"])
            #expect(full.json?["scenarioTitle"] as? String == "Ordering Coffee")

            let progress = try await HTTPTestClient.request("GET", port: port, "/api/progress", token: token)
            let entries = try #require(progress.json?["progress"] as? [[String: Any]])
            #expect(entries.first?["totalXP"] as? Int == xp)
            #expect(entries.first?["totalSessions"] as? Int == 1)
            #expect(entries.first?["soloSessions"] as? Int == 1)

            // Someone else (premium too) cannot see it exists.
            try await setPremium(port, "eve", true)
            let peek = try await HTTPTestClient.request("GET", port: port, "/api/history/\(sessionId)", token: HubTestServer.token("eve"))
            #expect(peek.status == 404)
            #expect(peek.json?["code"] as? String == "not_found")
            let steal = try await HTTPTestClient.request("DELETE", port: port, "/api/history/\(sessionId)", token: HubTestServer.token("eve"))
            #expect(steal.status == 404)

            // Bad paging is a 400 with a message.
            let bad = try await HTTPTestClient.request("GET", port: port, "/api/history?limit=0", token: token)
            #expect(bad.status == 400)
            #expect((bad.json?["message"] as? String)?.contains("limit") == true)

            // A lapsed subscription hides the history without deleting it.
            try await setPremium(port, "pia", false)
            let locked = try await HTTPTestClient.request("GET", port: port, "/api/history", token: token)
            #expect(locked.status == 403)
            #expect(locked.json?["code"] as? String == "feature_locked")
            try await setPremium(port, "pia", true)
            #expect(try await HTTPTestClient.request("GET", port: port, "/api/history", token: token).json?["total"] as? Int == 1)

            let deleted = try await HTTPTestClient.request("DELETE", port: port, "/api/history/\(sessionId)", token: token)
            #expect(deleted.status == 204)
            #expect(try await HTTPTestClient.request("GET", port: port, "/api/history/\(sessionId)", token: token).status == 404)
        }
    }

    @Test func aFreePlayerGetsFeatureLockedAndNothingStoredButProgressCounts() async throws {
        let (path, remove) = Self.databasePath()
        defer { remove() }
        try await HubTestServer.with(persistence: try Self.sqlite(path)) { port, _ in
            let (_, me) = try await playSolo(port, "fred", lines: ["Buenos días"])
            #expect(me.object("history")?.string("status") == "Error")
            #expect(me.object("history")?.string("reason") == "featureLocked")
            let token = HubTestServer.token("fred")
            let locked = try await HTTPTestClient.request("GET", port: port, "/api/history", token: token)
            #expect(locked.status == 403)
            let progress = try await HTTPTestClient.request("GET", port: port, "/api/progress", token: token)
            #expect((progress.json?["progress"] as? [[String: Any]])?.first?["totalSessions"] as? Int == 1)
            // Deleting needs no premium (a lapsed subscriber can clean up); there is nothing here.
            let cleared = try await HTTPTestClient.request("DELETE", port: port, "/api/history", token: token)
            #expect(cleared.status == 200)
            #expect(cleared.json?["deleted"] as? Int == 0)
            // Upgrading later shows an empty history: nothing was kept while free.
            try await setPremium(port, "fred", true)
            #expect(try await HTTPTestClient.request("GET", port: port, "/api/history", token: token).json?["total"] as? Int == 0)
        }
    }

    @Test func historyProfilesAndProgressSurviveARestartOnTheSameFile() async throws {
        let (path, remove) = Self.databasePath()
        defer { remove() }
        var sessionId = ""
        try await HubTestServer.with(persistence: try Self.sqlite(path)) { port, _ in
            try await setPremium(port, "rae", true)
            let update = try await HTTPTestClient.request("PUT", port: port, "/api/profile", token: HubTestServer.token("rae"),
                                                          body: ["dailyGoalMinutes": 25])
            #expect(update.status == 200)
            sessionId = try await playSolo(port, "rae", lines: ["Quisiera un té"]).0
        }
        try await HubTestServer.with(persistence: try Self.sqlite(path)) { port, server in
            #expect(server.recovery == RecoveryReport())
            let token = HubTestServer.token("rae")
            let profile = try await HTTPTestClient.request("GET", port: port, "/api/profile", token: token)
            #expect(profile.json?["dailyGoalMinutes"] as? Int == 25)
            #expect(profile.json?["isPremium"] as? Bool == true)
            let full = try await HTTPTestClient.request("GET", port: port, "/api/history/\(sessionId)", token: token)
            #expect(full.status == 200)
            #expect((full.json?["dialogLines"] as? [[String: Any]])?.count == 1)
        }
    }

    @Test func overTheWebSocketProfileAndHistoryAreReadAndHistoryUpdatedIsPushed() async throws {
        let (path, remove) = Self.databasePath()
        defer { remove() }
        try await HubTestServer.with(persistence: try Self.sqlite(path)) { port, _ in
            try await setPremium(port, "wes", true)
            // A second device of the same user, idle in the lobby.
            let tablet = try await HubTestClient.connect(port: port, token: HubTestServer.token("wes"))
            _ = try #require(await tablet.expect("welcome"))
            tablet.send(["type": "profile", "id": "p"])
            let profile = try #require(await tablet.expect("profile"))
            #expect(profile.string("ref") == "p")
            #expect(profile.object("profile")?.string("id") == "wes")
            tablet.send(["type": "updateProfile", "id": "u", "profile": ["dailyGoalMinutes": 40, "currentTargetLanguage": "it"] as [String: any Sendable]])
            #expect(try #require(await tablet.expect("profile")).object("profile")?.int("dailyGoalMinutes") == 40)
            tablet.send(["type": "updateProfile", "id": "x", "profile": ["isPremium": true]])
            let refused = try #require(await tablet.expect("error"))
            #expect(refused.string("code") == "forbidden")
            #expect(refused.string("ref") == "x")

            let (sessionId, _) = try await playSolo(port, "wes", lines: ["Hola, buenas tardes"])
            let pushed = try #require(await tablet.expect("historyUpdated"))
            #expect(pushed.object("session")?.string("sessionId") == sessionId)
            #expect(pushed.object("session")?.int("lineCount") == 1)
            // What was stored: the entry's language is the player's current one, not the scenario's.
            #expect(pushed.object("session")?.string("targetLanguage") == "it")

            tablet.send(["type": "history", "id": "h", "limit": 5])
            let page = try #require(await tablet.expect("history"))
            #expect(page.int("total") == 1)
            #expect(page.objects("sessions").first?.string("sessionId") == sessionId)
            tablet.send(["type": "historySession", "id": "s", "sessionId": sessionId])
            let entry = try #require(await tablet.expect("historySession"))
            #expect(entry.object("session")?.objects("dialogLines").first?.string("textNative") == "Hola, buenas tardes")
            tablet.send(["type": "historySession", "id": "n", "sessionId": "nope"])
            #expect(try #require(await tablet.expect("error")).string("code") == "not_found")
            tablet.send(["type": "history", "id": "b", "limit": 1000])
            #expect(try #require(await tablet.expect("error")).string("code") == "bad_request")

            let free = try await HubTestClient.connect(port: port, token: HubTestServer.token("fay"))
            _ = try #require(await free.expect("welcome"))
            free.send(["type": "history", "id": "h"])
            let locked = try #require(await free.expect("error"))
            #expect(locked.string("code") == "feature_locked")
            #expect(locked.string("ref") == "h")
        }
    }

    @Test func theAPIAnswers404WithoutStores() async throws {
        try await HubTestServer.with { port in
            let reply = try await HTTPTestClient.request("GET", port: port, "/api/history", token: HubTestServer.token("x"))
            #expect(reply.status == 404)
        }
    }
}
