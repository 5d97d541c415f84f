import Foundation
import HubDomain
import HubStorage
import SessionHubServer
import Testing

/// `POST /api/history` (a session the app played on its own) and `GET /api/history?full=1`
/// (whole sessions in one request) on the real server and a real SQLite file.
@Suite("History saved by the app, and whole-session listings", .timeLimit(.minutes(2)))
struct HistoryPostIntegrationTests {
    private static func withHub(_ adjust: @escaping (inout HubServerConfiguration) -> Void = { _ in },
                                _ body: (Int) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hub-post-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let persistence = try HubPersistence.sqlite(path: dir + "/data/sessionhub.sqlite", logger: .init(label: "test"))
        try await HubTestServer.with(persistence: persistence, adjust: adjust) { port, _ in try await body(port) }
    }

    private func setPremium(_ port: Int, _ user: String) async throws {
        let reply = try await HTTPTestClient.request("PUT", port: port, "/admin/users/\(user)/premium",
                                                     token: HubTestServer.token("ops", admin: true), body: ["isPremium": true])
        #expect(reply.status == 200)
    }

    /// A session as the SDK's app saves it: the SDK's fields only.
    static func appSession(_ id: String, at timestamp: Int64, lines: Int = 2, text: String = "Hola") -> [String: Any] {
        [
            "sessionId": id, "scenarioTitle": "Ordering Coffee", "timestamp": timestamp, "targetLanguage": "es",
            "durationSeconds": 95,
            "dialogLines": (0..<lines).map { index -> [String: Any] in
                ["id": "l\(index + 1)", "speakerId": "app-user", "roleName": "Customer", "textNative": text,
                 "textTranslated": "Hello", "timestamp": timestamp - 1000 + Int64(index)]
            },
        ]
    }

    private static let now = Int64(Date().timeIntervalSince1970 * 1000)

    @Test func aPremiumUsersSessionIsCreatedOnceAndListedFirst() async throws {
        try await Self.withHub { port in
            try await setPremium(port, "pia")
            let token = HubTestServer.token("pia")
            let older = Self.appSession("app-older", at: Self.now - 60_000)
            #expect(try await HTTPTestClient.request("POST", port: port, "/api/history", token: token, body: older).status == 201)

            let body = Self.appSession("app-1", at: Self.now)
            let created = try await HTTPTestClient.request("POST", port: port, "/api/history", token: token, body: body)
            #expect(created.status == 201)
            #expect(created.json?["sessionId"] as? String == "app-1")
            #expect((created.json?["dialogLines"] as? [[String: Any]])?.count == 2)
            // Extras the app did not send are absent, not made up.
            #expect(created.json?["stats"] == nil)
            #expect(created.json?["recasts"] == nil)

            // The same body again: 200 with the stored one, no duplicate.
            let again = try await HTTPTestClient.request("POST", port: port, "/api/history", token: token, body: body)
            #expect(again.status == 200)
            #expect(again.body == created.body)

            let list = try await HTTPTestClient.request("GET", port: port, "/api/history", token: token)
            #expect(list.json?["total"] as? Int == 2)
            let ids = (list.json?["sessions"] as? [[String: Any]])?.map { $0["sessionId"] as? String }
            #expect(ids == ["app-1", "app-older"])
            let summary = try #require((list.json?["sessions"] as? [[String: Any]])?.first)
            #expect(summary["lineCount"] as? Int == 2)
            #expect(summary["xpEarned"] as? Int == 0)

            // A different body under the same id is refused and changes nothing.
            let changed = Self.appSession("app-1", at: Self.now, text: "Adiós")
            let conflict = try await HTTPTestClient.request("POST", port: port, "/api/history", token: token, body: changed)
            #expect(conflict.status == 409)
            #expect(conflict.json?["code"] as? String == "history_conflict")
            #expect(conflict.json?["error"] as? Bool == true)
            let stored = try await HTTPTestClient.request("GET", port: port, "/api/history/app-1", token: token)
            #expect(stored.body == created.body)

            // Another premium user's same id is theirs alone.
            try await setPremium(port, "eve")
            let eve = try await HTTPTestClient.request("POST", port: port, "/api/history", token: HubTestServer.token("eve"), body: changed)
            #expect(eve.status == 201)
            #expect(try await HTTPTestClient.request("GET", port: port, "/api/history/app-1", token: token).body == created.body)
        }
    }

    @Test func aNewSessionIsPushedAsHistoryUpdatedToTheUsersConnections() async throws {
        try await Self.withHub { port in
            try await setPremium(port, "pia")
            let token = HubTestServer.token("pia")
            let tablet = try await HubTestClient.connect(port: port, token: token)
            _ = try #require(await tablet.expect("welcome"))
            let body = Self.appSession("app-push", at: Self.now)
            #expect(try await HTTPTestClient.request("POST", port: port, "/api/history", token: token, body: body).status == 201)
            let pushed = try #require(await tablet.expect("historyUpdated"))
            #expect(pushed.object("session")?.string("sessionId") == "app-push")
            #expect(pushed.object("session")?.int("lineCount") == 2)
            // Saved again (stored already): no push.
            #expect(try await HTTPTestClient.request("POST", port: port, "/api/history", token: token, body: body).status == 200)
            tablet.send(["type": "ping", "id": "p"])
            let next = try #require(await tablet.nextMessage())
            #expect(next.string("type") == "pong")
            tablet.drop()
        }
    }

    /// docs/API.md's `?full=1` example: its session, posted, is answered and listed exactly so.
    @Test func theDocumentedWholeSessionExampleIsWhatTheHubAnswers() async throws {
        let blocks = try MarkdownDocument.jsonBlocks(in: MarkdownDocument.load("docs/API.md").text)
        let example = try #require(blocks.first { $0.contains("\"dialogLines\"") && $0.contains("\"total\"") })
        let page = try #require(try JSONSerialization.jsonObject(with: Data(example.utf8)) as? [String: Any])
        let session = try #require((page["sessions"] as? [[String: Any]])?.first)
        try await Self.withHub { port in
            try await setPremium(port, "ana")
            let token = HubTestServer.token("ana")
            let posted = try await HTTPTestClient.request("POST", port: port, "/api/history", token: token, body: session)
            #expect(posted.status == 201)
            let listed = try await HTTPTestClient.request("GET", port: port, "/api/history?full=1&limit=2", token: token)
            let answer = try #require(listed.json)
            #expect(NSDictionary(dictionary: answer).isEqual(to: page), "\(String(decoding: listed.body, as: UTF8.self))")
        }
    }

    @Test func aFreeUserIsAnsweredFeatureLockedAndNothingIsStored() async throws {
        try await Self.withHub { port in
            let token = HubTestServer.token("fred")
            let refused = try await HTTPTestClient.request("POST", port: port, "/api/history", token: token,
                                                           body: Self.appSession("app-1", at: Self.now))
            #expect(refused.status == 403)
            #expect(refused.json?["code"] as? String == "feature_locked")
            #expect(refused.json?["error"] as? Bool == true)
            #expect(refused.json?.keys.contains("details") == true)
            try await setPremium(port, "fred")
            let list = try await HTTPTestClient.request("GET", port: port, "/api/history", token: token)
            #expect(list.json?["total"] as? Int == 0)
        }
    }

    @Test func badBodiesAreRefusedWithStableCodes() async throws {
        try await Self.withHub({ $0.hub.maxLinesPerSession = 3; $0.hub.maxTextLength = 10 }) { port in
            try await setPremium(port, "pia")
            let token = HubTestServer.token("pia")
            func post(_ body: [String: Any]) async throws -> (Int, String?, String?) {
                let reply = try await HTTPTestClient.request("POST", port: port, "/api/history", token: token, body: body)
                return (reply.status, reply.json?["code"] as? String, reply.json?["message"] as? String)
            }
            func with(_ key: String, _ value: Any) -> [String: Any] {
                var body = Self.appSession("bad", at: Self.now)
                body[key] = value
                return body
            }
            let notJSON = try await HTTPTestClient.request("POST", port: port, "/api/history", token: token, raw: Data("{oops".utf8))
            #expect(notJSON.status == 400)
            #expect(notJSON.json?["code"] as? String == "bad_request")

            var missing = Self.appSession("bad", at: Self.now)
            missing["dialogLines"] = nil
            #expect(try await post(missing) == (400, "bad_request", "invalid JSON body: missing field dialogLines"))
            #expect(try await post(with("durationSeconds", "long")).0 == 400)

            let (_, _, idMessage) = try await post(with("sessionId", "a/b"))
            #expect(idMessage?.hasPrefix("sessionId") == true)
            #expect(try await post(with("sessionId", "")).1 == "bad_request")
            #expect(try await post(with("targetLanguage", "Spanish language")).2?.hasPrefix("targetLanguage must be a BCP 47 language tag") == true)
            #expect(try await post(with("timestamp", 0)).1 == "bad_request")
            #expect(try await post(with("timestamp", Self.now + 2 * 86_400_000)).1 == "bad_request")
            #expect(try await post(with("durationSeconds", -1)).1 == "bad_request")
            #expect(try await post(with("scenarioTitle", "")).1 == "bad_request")

            // The live session's limits (session.maxLines, session.maxTextLength) hold here too.
            #expect(try await post(Self.appSession("many", at: Self.now, lines: 4)).1 == "session_limit")
            #expect(try await post(Self.appSession("long", at: Self.now, text: String(repeating: "a", count: 11))).1 == "text_too_long")
            var twice = Self.appSession("twice", at: Self.now)
            let first = try #require((twice["dialogLines"] as? [[String: Any]])?.first)
            twice["dialogLines"] = [first, first]
            #expect(try await post(twice).2?.hasPrefix("dialogLines[].id must be unique") == true)

            // The API's body limit (http.maxApiBodySize), enforced by the HTTP layer before reading.
            let huge = Self.appSession("huge", at: Self.now, text: String(repeating: "a", count: 70_000))
            let tooLarge = try await HTTPTestClient.request("POST", port: port, "/api/history", token: token, body: huge)
            #expect(tooLarge.status == 413)

            // Nothing of it was stored.
            #expect(try await HTTPTestClient.request("GET", port: port, "/api/history", token: token).json?["total"] as? Int == 0)
            // And the method list of the route.
            #expect(try await HTTPTestClient.request("PUT", port: port, "/api/history", token: token, body: [:]).status == 405)
        }
    }

    /// Plays a solo session for `user` on the WebSocket; returns its id.
    private func playSolo(_ port: Int, _ user: String) async throws -> String {
        let client = try await HubTestClient.connect(port: port, token: HubTestServer.token(user))
        _ = try #require(await client.expect("welcome"))
        client.send(["type": "startSolo", "id": "s", "scenarioId": "ordering-coffee"])
        let joined = try #require(await client.expect("joined"))
        let sessionId = try #require(joined.object("session")?.string("sessionId"))
        client.send(["type": "say", "id": "l", "textNative": "Un café", "textTranslated": "A coffee"])
        _ = try #require(await client.expect("line"))
        client.send(["type": "end", "id": "e"])
        _ = try #require(await client.expect("ended"))
        client.drop()
        return sessionId
    }

    @Test func aSessionTheHubRecordedIsAnsweredAsTheHubsOrRefused() async throws {
        try await Self.withHub { port in
            try await setPremium(port, "pia")
            let token = HubTestServer.token("pia")
            let sessionId = try await playSolo(port, "pia")
            let hubs = try await HTTPTestClient.request("GET", port: port, "/api/history/\(sessionId)", token: token)
            #expect(hubs.status == 200)
            // The app posts the hub's session id: the hub's entry is answered and kept.
            let posted = try await HTTPTestClient.request("POST", port: port, "/api/history", token: token,
                                                          body: Self.appSession(sessionId, at: Self.now))
            #expect(posted.status == 200)
            #expect(posted.body == hubs.body)
            #expect(posted.json?["stats"] != nil)

            // Deleted from history, the hub's session is not brought back by the app.
            #expect(try await HTTPTestClient.request("DELETE", port: port, "/api/history/\(sessionId)", token: token).status == 204)
            let refused = try await HTTPTestClient.request("POST", port: port, "/api/history", token: token,
                                                           body: Self.appSession(sessionId, at: Self.now))
            #expect(refused.status == 409)
            #expect(refused.json?["code"] as? String == "history_conflict")
            #expect(try await HTTPTestClient.request("GET", port: port, "/api/history", token: token).json?["total"] as? Int == 0)
        }
    }

    @Test func wholeSessionListingsEqualPerEntryReadsAndPage() async throws {
        try await Self.withHub({ $0.maxFullHistoryPage = 3 }) { port in
            try await setPremium(port, "pia")
            let token = HubTestServer.token("pia")
            let played = try await playSolo(port, "pia")
            for index in 0..<4 {
                let body = Self.appSession("app-\(index)", at: Self.now - Int64(10_000 * (index + 1)), lines: index + 1)
                #expect(try await HTTPTestClient.request("POST", port: port, "/api/history", token: token, body: body).status == 201)
            }
            let summaries = try await HTTPTestClient.request("GET", port: port, "/api/history", token: token)
            let order = try #require((summaries.json?["sessions"] as? [[String: Any]])?.compactMap { $0["sessionId"] as? String })
            #expect(order.count == 5)
            #expect(order.first == played)

            // Pages of at most 3 whole sessions, in the summaries' order, each equal to its own read.
            var seen: [String] = []
            var before: Int64?
            for _ in 0..<3 {
                let path = "/api/history?full=1&limit=3" + (before.map { "&before=\($0)" } ?? "")
                let page = try await HTTPTestClient.request("GET", port: port, path, token: token)
                #expect(page.status == 200)
                #expect(page.json?["total"] as? Int == 5)
                let sessions = try #require(page.json?["sessions"] as? [[String: Any]])
                for session in sessions {
                    let id = try #require(session["sessionId"] as? String)
                    let single = try await HTTPTestClient.request("GET", port: port, "/api/history/\(id)", token: token)
                    let one = try #require(single.json)
                    #expect(NSDictionary(dictionary: one).isEqual(to: session), "\(id)")
                    seen.append(id)
                }
                guard let last = (sessions.last?["timestamp"] as? NSNumber)?.int64Value, sessions.count == 3 else { break }
                before = last
            }
            #expect(seen == order)

            let tooMany = try await HTTPTestClient.request("GET", port: port, "/api/history?full=1&limit=4", token: token)
            #expect(tooMany.status == 400)
            #expect((tooMany.json?["message"] as? String)?.contains("1 to 3") == true)
            #expect(try await HTTPTestClient.request("GET", port: port, "/api/history?full=yes", token: token).status == 400)
            let noTime = try await HTTPTestClient.request("GET", port: port, "/api/history?beforeId=app-1", token: token)
            #expect(noTime.status == 400)
            #expect(noTime.json?["message"] as? String == "beforeId needs before (the same entry's timestamp)")
            // The cursor as an entry: the page after app-1 starts with app-2.
            let after = try #require(order.firstIndex(of: "app-1"))
            let stamp = try #require((try await HTTPTestClient.request("GET", port: port, "/api/history/app-1", token: token)
                .json?["timestamp"] as? NSNumber)?.int64Value)
            let next = try await HTTPTestClient.request("GET", port: port, "/api/history?full=1&limit=1&before=\(stamp)&beforeId=app-1",
                                                        token: token)
            #expect((next.json?["sessions"] as? [[String: Any]])?.first?["sessionId"] as? String == order[after + 1])
            let defaulted = try await HTTPTestClient.request("GET", port: port, "/api/history?full=1", token: token)
            #expect((defaulted.json?["sessions"] as? [[String: Any]])?.count == 3)
            // Not premium: locked like the summaries.
            let locked = try await HTTPTestClient.request("GET", port: port, "/api/history?full=1", token: HubTestServer.token("fred"))
            #expect(locked.status == 403)
            #expect(locked.json?["code"] as? String == "feature_locked")

            // Clearing is idempotent.
            let cleared = try await HTTPTestClient.request("DELETE", port: port, "/api/history", token: token)
            #expect(cleared.json?["deleted"] as? Int == 5)
            let again = try await HTTPTestClient.request("DELETE", port: port, "/api/history", token: token)
            #expect(again.status == 200)
            #expect(again.json?["deleted"] as? Int == 0)
        }
    }

    @Test("Stored as a live session keeps it: trimmed texts, canonical language, no XP of the app's in listings; ids with ':' reachable escaped")
    func postedSessionsAreNormalisedAndReachable() async throws {
        try await Self.withHub { port in
            try await setPremium(port, "pia")
            let token = HubTestServer.token("pia")
            var body = Self.appSession("app:1", at: Self.now, text: "  Un café, por favor.  ")
            body["targetLanguage"] = "es-mx"
            body["stats"] = ["sessionId": "app:1", "startedAt": Self.now - 95_000, "endedAt": Self.now, "mode": "SOLO",
                             "scenarioId": "ordering-coffee", "linesSpoken": 2, "wordsEncountered": 8, "newVocabulary": 8,
                             "errorsDetected": 0, "errorsCorrected": 0, "xpEarned": 999_999,
                             "xpBreakdown": ["dialogCompletion": 0, "vocabularyBonus": 0, "accuracyBonus": 0,
                                             "collaborationBonus": 0, "streakBonus": 0]] as [String: Any]
            let created = try await HTTPTestClient.request("POST", port: port, "/api/history", token: token, body: body)
            #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
            #expect(created.json?["targetLanguage"] as? String == "es-MX")
            let lines = created.json?["dialogLines"] as? [[String: Any]]
            #expect(lines?.first?["textNative"] as? String == "Un café, por favor.")
            // The same body again is the same session (compared after the same normalisation).
            #expect(try await HTTPTestClient.request("POST", port: port, "/api/history", token: token, body: body).status == 200)
            let list = try await HTTPTestClient.request("GET", port: port, "/api/history", token: token)
            #expect((list.json?["sessions"] as? [[String: Any]])?.first?["xpEarned"] as? Int == 0)

            var empty = Self.appSession("app-2", at: Self.now, text: "   ")
            empty["targetLanguage"] = "es"
            let refused = try await HTTPTestClient.request("POST", port: port, "/api/history", token: token, body: empty)
            #expect(refused.status == 400)
            #expect(refused.json?["code"] as? String == "empty_text")

            // An id with ':' percent-escaped in the path (as the client sends it) is found and deleted.
            #expect(try await HTTPTestClient.request("GET", port: port, "/api/history/app%3A1", token: token).status == 200)
            #expect(try await HTTPTestClient.request("DELETE", port: port, "/api/history/app%3A1", token: token).status == 204)
            #expect(try await HTTPTestClient.request("GET", port: port, "/api/history/app:1", token: token).status == 404)
        }
    }
}
