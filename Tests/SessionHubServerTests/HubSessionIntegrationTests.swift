import HubDomain
import SessionHubServer
import Testing
import WebSocket

/// The real server on a loopback port, played by our own WebSocket client.
@Suite("Hub sessions over WebSocket", .timeLimit(.minutes(2)))
struct HubSessionIntegrationTests {
    /// Connects `user`, checks `welcome`.
    private func player(_ port: Int, _ user: String) async throws -> HubTestClient {
        let client = try await HubTestClient.connect(port: port, token: HubTestServer.token(user))
        let welcome = try #require(await client.expect("welcome"))
        #expect(welcome.string("userId") == user)
        #expect(welcome.int("protocolVersion") == 1)
        return client
    }

    @Test func soloSessionFromStartToHistoryResult() async throws {
        try await HubTestServer.with { port in
            let solo = try await player(port, "sol")
            solo.send(["type": "scenarios", "id": "c"])
            let catalogue = try #require(await solo.expect("scenarios"))
            #expect(catalogue.string("ref") == "c")
            #expect(catalogue.objects("scenarios").count >= 6)
            solo.send(["type": "startSolo", "id": "s", "scenarioId": "ordering-coffee"])
            let joined = try #require(await solo.expect("joined"))
            #expect(joined.string("ref") == "s")
            let session = try #require(joined.object("session"))
            #expect(session.string("joinCode") == nil)
            #expect(session.object("you")?.string("mode") == "SOLO")
            solo.send(["type": "say", "id": 1, "textNative": "  Un café, por favor.  ", "textTranslated": "A coffee, please."])
            let line = try #require(await solo.expect("line"))
            #expect(line.string("ref") == "1")
            #expect((line.int("seq") ?? 0) >= 2)  // 2, or later when a live stats tick came first
            #expect(line.object("line")?.string("textNative") == "Un café, por favor.")
            solo.send(["type": "end", "id": "e"])
            let ended = try #require(await solo.expect("ended"))
            #expect(ended.string("cause") == "hostEnded")
            let me = try #require(ended.objects("participants").first)
            #expect(me.object("stats")?.int("linesSpoken") == 1)
            #expect(me.object("stats")?.int("xpEarned") == 10 + 8 + 0)  // 1 line, 4 new words; streak 1 → +5% of 18 = 0
            #expect(me.object("history")?.string("status") == "Error")
            #expect(me.object("history")?.string("reason") == "featureLocked")
            let left = try #require(await solo.expect("left"))
            #expect(left.string("reason") == "ended")
        }
    }

    @Test func fourPlayersShareLinesRecastsAndFinalStats() async throws {
        try await HubTestServer.with(history: InMemoryHistoryWriter(isPremium: { $0 == "ana" })) { port in
            let host = try await player(port, "ana")
            host.send(["type": "host", "id": "h", "scenarioId": "dinner-with-friends", "maxPlayers": 4])
            let hosted = try #require(await host.expect("joined"))
            let code = try #require(hosted.object("session")?.string("joinCode"))
            #expect(code.count == 6)
            var players = [host]
            var roles = [try #require(hosted.object("session")?.object("you")?.string("roleName"))]
            for name in ["ben", "cat", "dan"] {
                let client = try await player(port, name)
                client.send(["type": "join", "id": "j", "code": code.lowercased()])
                let joined = try #require(await client.expect("joined"))
                roles.append(try #require(joined.object("session")?.object("you")?.string("roleName")))
                players.append(client)
            }
            #expect(Set(roles).count == 4, "four distinct roles: \(roles)")
            let fifth = try await player(port, "eve")
            fifth.send(["type": "join", "id": "x", "code": code])
            #expect(await fifth.expect("error")?.string("code") == "session_full")

            // Ben speaks; everyone gets the same line with the same seq.
            players[1].send(["type": "say", "id": "b1", "textNative": "¿Qué vamos a pedir?", "textTranslated": "What shall we order?"])
            var seqs = Set<Int>()
            for player in players {
                let line = try #require(await player.expect("line"))
                #expect(line.object("line")?.string("speakerId") == "ben")
                seqs.insert(try #require(line.int("seq")))
            }
            #expect(seqs.count == 1)
            // Cat corrects Ben, Ben accepts.
            players[2].send(["type": "recast", "id": "r", "lineId": "l1", "correctedText": "¿Qué pedimos?",
                             "issueTypes": ["naturalness"], "explanation": "shorter"])
            for player in players { #expect(await player.expect("recast")?.object("recast")?.string("authorId") == "cat") }
            players[1].send(["type": "acceptRecast", "id": "a", "recastId": "r1"])
            for player in players { #expect(await player.expect("recastAccepted")?.string("recastId") == "r1") }
            // Only the host may end.
            players[3].send(["type": "end", "id": "no"])
            #expect(await players[3].expect("error")?.string("code") == "not_allowed")
            host.send(["type": "end", "id": "end"])
            let ended = try #require(await host.expect("ended"))
            let figures = Dictionary(uniqueKeysWithValues: ended.objects("participants").compactMap { p in p.string("userId").map { ($0, p) } })
            #expect(figures["ben"]?.object("stats")?.int("errorsDetected") == 1)
            #expect(figures["ben"]?.object("stats")?.int("errorsCorrected") == 1)
            #expect(figures["ben"]?.object("collaboration")?.int("successfulRepairs") == 1)
            #expect(figures["cat"]?.object("collaboration")?.int("helpGiven") == 1)
            #expect(figures["cat"]?.object("stats")?.object("xpBreakdown")?.int("collaborationBonus") == 10)
            #expect(figures["ben"]?.object("weakSpots")?.int("naturalness") == 1)
            #expect(figures["ana"]?.object("history")?.string("status") == "Success")
            #expect(figures["ben"]?.object("history")?.string("reason") == "featureLocked")
        }
    }

    @Test func droppedPlayerResumesWithExactlyTheMissedMessages() async throws {
        try await HubTestServer.with { port in
            let host = try await player(port, "hal")
            host.send(["type": "host", "scenarioId": "ordering-coffee"])
            let code = try #require(await host.expect("joined")?.object("session")?.string("joinCode"))
            let guest = try await player(port, "gus")
            guest.send(["type": "join", "code": code])
            let joined = try #require(await guest.expect("joined"))
            let token = try #require(joined.string("resumeToken"))
            var lastSeq = try #require(joined.object("session")?.int("seq"))
            host.send(["type": "say", "textNative": "Hola", "textTranslated": "Hi"])
            lastSeq = try #require(await guest.expect("line")?.int("seq"))
            guest.drop()
            #expect(await host.expect("participants")?.object("change")?.string("kind") == "joined")
            let gone = try #require(await host.expect("participants"))
            #expect(gone.object("change")?.string("kind") == "disconnected")
            var missed: [Int] = []
            for text in ["Buenos días", "¿Qué desea?"] {
                host.send(["type": "say", "textNative": text, "textTranslated": "-"])
                missed.append(try #require(await host.expect("line")?.int("seq")))
            }
            let back = try await HubTestClient.connect(port: port, token: HubTestServer.token("gus"))
            let welcome = try #require(await back.expect("welcome"))
            #expect(welcome.string("resumableSessionId") != nil)
            back.send(["type": "resume", "id": "r", "resumeToken": token, "lastSeq": lastSeq])
            let resumed = try #require(await back.expect("resumed"))
            #expect(resumed.string("mode") == "replay")
            // The disconnect notice and the two lines, plus a live `stats` if the session clock
            // ticked meanwhile (a slow machine): exactly the seqs after lastSeq, in order.
            let count = try #require(resumed.int("replayed"))
            var replayed: [Int] = []
            var kinds: [String] = []
            for _ in 0..<count {
                let message = try #require(await back.nextMessage(skippingStats: false))
                replayed.append(try #require(message.int("seq")))
                if message.type != "stats" { kinds.append(message.type ?? "?") }
            }
            #expect(replayed == Array((lastSeq + 1)...(lastSeq + count)))
            #expect(kinds == ["participants", "line", "line"])
            #expect(replayed.contains(missed[0]) && replayed.contains(missed[1]))
            let reconnected = try #require(await host.expect("participants"))
            #expect(reconnected.object("change")?.string("kind") == "reconnected")
            // The old token was rotated.
            let again = try await HubTestClient.connect(port: port, token: HubTestServer.token("gus"))
            _ = await again.expect("welcome")
            again.send(["type": "resume", "resumeToken": token, "lastSeq": 0])
            #expect(await again.expect("error")?.string("code") == "invalid_resume_token")
        }
    }

    @Test func hostLeavingHandsHostingToTheNextPlayer() async throws {
        try await HubTestServer.with { port in
            let host = try await player(port, "amy")
            host.send(["type": "host", "scenarioId": "ordering-coffee"])
            let code = try #require(await host.expect("joined")?.object("session")?.string("joinCode"))
            let second = try await player(port, "bob")
            second.send(["type": "join", "code": code])
            _ = try #require(await second.expect("joined"))
            host.send(["type": "leave", "id": "bye"])
            #expect(await host.expect("left")?.string("ref") == "bye")
            #expect(await second.expect("hostChanged")?.string("userId") == "bob")
            second.send(["type": "say", "textNative": "Sigo aquí", "textTranslated": "Still here"])
            #expect(await second.expect("line") != nil)
            second.send(["type": "end"])
            #expect(await second.expect("ended")?.string("cause") == "hostEnded")
        }
    }

    @Test func authenticationComesFirst() async throws {
        try await HubTestServer.with { port in
            let forged = try await HubTestClient.connect(port: port, token: "a.b.c")
            guard case .closed(let code, let reason) = await forged.next() else { Issue.record("not closed"); return }
            #expect(code == .policyViolation)
            #expect(reason.hasPrefix("token_"))

            let expired = try await HubTestClient.connect(port: port, token: HubTestServer.token("old", ttl: -10))
            guard case .closed(let expiredCode, let expiredReason) = await expired.next() else { Issue.record("not closed"); return }
            #expect(expiredCode == .policyViolation)
            #expect(expiredReason.hasPrefix("token_expired"))

            let eager = try await HubTestClient.connect(port: port, token: nil)
            eager.send(["type": "startSolo", "scenarioId": "ordering-coffee"])
            guard case .closed(let eagerCode, let eagerReason) = await eager.next() else { Issue.record("not closed"); return }
            #expect(eagerCode == .policyViolation)
            #expect(eagerReason.hasPrefix("auth_required"))

            let browser = try await HubTestClient.connect(port: port, token: nil)
            browser.send(["type": "auth", "token": HubTestServer.token("web")])
            #expect(await browser.expect("welcome")?.string("userId") == "web")
        }
    }

    @Test func badRequestsGetStableErrorCodes() async throws {
        try await HubTestServer.with { port in
            let p = try await player(port, "zed")
            func expectError(_ message: [String: any Sendable], _ code: String) async {
                p.send(message)
                let error = await p.expect("error")
                #expect(error?.string("code") == code, "\(message)")
                if let id = message["id"] as? String { #expect(error?.string("ref") == id) }
            }
            p.send(raw: "{not json")
            #expect(await p.expect("error")?.string("code") == "malformed_json")
            await expectError(["type": "fly", "id": "1"], "unknown_type")
            await expectError(["type": "join", "id": "2"], "missing_field")
            await expectError(["type": "say", "id": "3", "textNative": "hi"], "not_in_session")
            await expectError(["type": "join", "id": "4", "code": "ZZZZZZ"], "unknown_join_code")
            await expectError(["type": "startSolo", "id": "5", "scenarioId": "moon-landing"], "unknown_scenario")
            p.send(["type": "startSolo", "scenarioId": "ordering-coffee"])
            _ = await p.expect("joined")
            await expectError(["type": "host", "id": "6", "scenarioId": "ordering-coffee"], "already_in_session")
            await expectError(["type": "say", "id": "7", "textNative": "   "], "empty_text")
            await expectError(["type": "say", "id": "8", "textNative": String(repeating: "a", count: 501)], "text_too_long")
            await expectError(["type": "recast", "id": "9", "lineId": "l9", "correctedText": "x", "issueTypes": ["grammar"]], "unknown_line")
            await expectError(["type": "recast", "id": "10", "lineId": "l1", "correctedText": "x", "issueTypes": ["spelling"]], "invalid_issue_type")
            await expectError(["type": "acceptRecast", "id": "11", "recastId": "r1"], "unknown_recast")
            p.send(["type": "say", "textNative": "Hola", "textTranslated": "Hi"])
            _ = await p.expect("line")
            await expectError(["type": "recast", "id": "12", "lineId": "l1", "correctedText": "x", "issueTypes": ["grammar"]], "not_allowed")
        }
    }

    @Test func floodingIsRateLimitedThenClosed() async throws {
        var limits = HubConnectionLimits()
        limits.lineBurst = 3
        // No refill during the test: a loaded machine may take over a second for the 12 lines.
        limits.linesPerSecond = 0.001
        limits.errorBurst = 5
        limits.errorsPerSecond = 0.1
        try await HubTestServer.with(limits: limits) { port in
            let p = try await player(port, "spam")
            p.send(["type": "startSolo", "scenarioId": "town-hall-meeting"])
            _ = await p.expect("joined")
            for i in 0..<12 { p.send(["type": "say", "id": "\(i)", "textNative": "línea \(i)", "textTranslated": "line"]) }
            var lines = 0, limited = 0
            var closeCode: WebSocketCloseCode?
            while let item = await p.next(seconds: 3) {
                switch item {
                case .text(let text):
                    let message = JSONObject(text)
                    if message?.type == "line" { lines += 1 }
                    if message?.string("code") == "rate_limited" { limited += 1 }
                case .closed(let code, _):
                    closeCode = code
                }
                if closeCode != nil { break }
            }
            #expect(lines == 3)
            #expect(limited >= 5)
            #expect(closeCode == .policyViolation)
        }
    }

    @Test func shutdownEndsLiveSessionsThenClosesWith1001() async throws {
        let writer = InMemoryHistoryWriter(isPremium: { _ in true })
        let server = try HubServer(configuration: HubServerConfiguration(port: 0, threads: 2, secret: HubTestServer.secret),
                                   history: writer)
        let port = try await server.start()
        let host = try await player(port, "sam")
        host.send(["type": "host", "scenarioId": "ordering-coffee"])
        let code = try #require(await host.expect("joined")?.object("session")?.string("joinCode"))
        let guest = try await player(port, "tia")
        guest.send(["type": "join", "code": code])
        _ = try #require(await guest.expect("joined"))
        host.send(["type": "say", "textNative": "¡Hola!", "textTranslated": "Hi!"])
        _ = try #require(await guest.expect("line"))
        await server.shutdown()
        for member in [host, guest] {
            let ended = try #require(await member.expect("ended"))
            #expect(ended.string("cause") == "serverShutdown")
            var closedWith: WebSocketCloseCode?
            while let item = await member.next(seconds: 5) {
                if case .closed(let code, _) = item { closedWith = code; break }
            }
            #expect(closedWith == .goingAway)
        }
        #expect(writer.sessions(of: "sam").first?.lines.map(\.textNative) == ["¡Hola!"])
        #expect(writer.sessions(of: "tia").count == 1)
    }

    @Test func liveStatsFollowWithinATick() async throws {
        try await HubTestServer.with { port in
            let solo = try await player(port, "liv")
            solo.send(["type": "startSolo", "scenarioId": "ordering-coffee"])
            _ = try #require(await solo.expect("joined"))
            solo.send(["type": "say", "textNative": "Hola hola amigo", "textTranslated": "Hi hi friend"])
            _ = try #require(await solo.expect("line"))
            // The hub's clock ticks once a second and sends figures no change carried once
            // LiveSession.statsClockSpacing (1.8 s) has passed: they follow as one `stats` broadcast.
            var figures: JSONObject?
            while let stats = await solo.expect("stats", seconds: 5) {
                figures = stats.objects("participants").first { $0.string("userId") == "liv" }
                if figures?.object("stats")?.int("linesSpoken") == 1 { break }
            }
            #expect(figures?.object("stats")?.int("linesSpoken") == 1)
            #expect(figures?.object("stats")?.int("wordsEncountered") == 2)
            #expect(figures?.object("stats")?.int("xpEarned") == 10 + 4)
        }
    }
}
