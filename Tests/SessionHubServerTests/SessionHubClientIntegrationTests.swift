import Foundation
import NIOSSL
import HubDomain
import HubProtocol
import SessionHubClient
import SessionHubServer
import Testing

/// The client library against the real hub on a loopback port: three players play a session
/// through typed calls, and every member's live model ends identical.
@Suite("SessionHubClient against a real hub")
struct SessionHubClientIntegrationTests {
    static func client(_ port: Int, _ user: String) throws -> SessionHubClient {
        try SessionHubClient(url: "ws://127.0.0.1:\(port)/ws") { HubTestServer.token(user) }
    }

    /// What every member of a live session shares: the model without live figures (those a member
    /// has depend on when it joined; at the end everyone gets the same final ones).
    static func shared(_ model: SessionModel) -> SessionModel {
        var shared = model
        shared.stats = [:]
        return shared
    }

    /// Waits until `client`'s model has applied `seq`.
    static func settle(_ client: SessionHubClient, at seq: Int) async throws -> SessionModel {
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            if let model = await client.session, model.seq >= seq { return model }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw SessionHubClientError.timedOut(request: "seq \(seq)")
    }

    /// Waits until every client's model has applied `seq`, then until they are all at the same
    /// seq: a `stats` broadcast (sent up to a second after a line, with a seq of its own) can
    /// reach one client between two snapshots, and models a seq apart are not comparable.
    static func settleTogether(_ clients: [SessionHubClient], at seq: Int) async throws -> [SessionModel] {
        let deadline = ContinuousClock.now + .seconds(15)
        var target = seq
        while true {
            var models: [SessionModel] = []
            for client in clients { models.append(try await settle(client, at: target)) }
            let newest = models.map(\.seq).max() ?? target
            if models.allSatisfy({ $0.seq == newest }) || ContinuousClock.now >= deadline { return models }
            target = newest
        }
    }

    @Test("Three players host, join, speak, correct, accept and end; every model ends the same")
    func threePlayers() async throws {
        try await HubTestServer.with { port in
            let ana = try Self.client(port, "ana"), ben = try Self.client(port, "ben"), cleo = try Self.client(port, "cleo")
            let welcome = try await ana.connect()
            #expect(welcome.userId == "ana")
            #expect(await ana.state == .connected(userId: "ana"))
            try await ben.connect()
            try await cleo.connect()

            let scenarios = try await ana.scenarios()
            let scenario = try #require(scenarios.first { $0.maxPlayers >= 3 })
            let hosted = try await ana.host(scenarioId: scenario.id)
            let code = try #require(hosted.joinCode)
            _ = try await ben.join(code: code.lowercased())
            _ = try await cleo.join(code: code)

            let first = try await ana.say("Buenos días", translation: "Good morning")
            #expect(first.speakerId == "ana")
            let second = try await ben.say("Yo quiero un cafe", translation: "I want a coffee")
            let recast = try await cleo.recast(lineId: second.id, correctedText: "Quiero un café, por favor",
                                               explanation: "More polite", issueTypes: [.naturalness])
            #expect(recast.authorId == "cleo")
            #expect(recast.speakerId == "ben")
            try await ben.acceptRecast(recast.id)
            let ended = try await ana.end()
            #expect(ended.cause == .hostEnded)
            #expect(Set(ended.participants.map(\.userId)) == ["ana", "ben", "cleo"])

            let final = try #require(await ana.session)
            #expect(final.lines.map(\.textNative) == ["Buenos días", "Yo quiero un cafe"])
            #expect(final.recasts.map(\.accepted) == [true])
            #expect(final.ended == ended)
            for other in [ben, cleo] {
                let model = try await Self.settle(other, at: final.seq)
                #expect(model == final, "every member applied the same broadcasts in the same order")
            }
            for player in [ana, ben, cleo] { await player.close() }
        }
    }

    @Test("Refusals throw the hub's stable code; calls in the wrong state are refused locally")
    func refusals() async throws {
        try await HubTestServer.with { port in
            let ana = try Self.client(port, "ana")
            await #expect(throws: SessionHubClientError.notConnected) { _ = try await ana.ping() }
            try await ana.connect()
            #expect(try await ana.ping() > 0)
            do {
                _ = try await ana.join(code: "ZZZZZZ")
                Issue.record("a join with an unknown code succeeded")
            } catch let SessionHubClientError.refused(code, _, _) {
                #expect(code == "unknown_join_code")
            }
            await #expect(throws: SessionHubClientError.wrongState("not in a session")) {
                _ = try await ana.say("Hola")
            }
            do {
                _ = try await ana.host(scenarioId: "no-such-scenario")
                Issue.record("hosting an unknown scenario succeeded")
            } catch let SessionHubClientError.refused(code, _, _) {
                #expect(code == "unknown_scenario")
            }
            await ana.close()
        }
    }

    @Test("A token the hub refuses fails connect, and the state says the connection closed")
    func refusedToken() async throws {
        try await HubTestServer.with { port in
            let mallory = try SessionHubClient(url: "ws://127.0.0.1:\(port)/ws") { "not.a.token" }
            await #expect(throws: SessionHubClientError.self) { try await mallory.connect() }
            guard case .closed = await mallory.state else {
                Issue.record("state after a refused token: \(await mallory.state)")
                return
            }
        }
    }

    @Test("After the connection closed, the state says so and calls throw notConnected")
    func closedConnection() async throws {
        try await HubTestServer.with { port in
            let ana = try Self.client(port, "ana")
            try await ana.connect()
            _ = try await ana.startSolo(scenarioId: try #require(try await ana.scenarios().first).id)
            #expect(await ana.isInSession)
            await ana.close()
            let deadline = ContinuousClock.now + .seconds(5)
            while case .connected = await ana.state, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            guard case .closed = await ana.state else {
                Issue.record("still \(await ana.state)")
                return
            }
            #expect(await !ana.isInSession)
            await #expect(throws: SessionHubClientError.notConnected) { _ = try await ana.say("¿Hola?") }
        }
    }

    @Test("A call waiting for its answer throws connectionClosed when the connection closes")
    func closeFailsWaiters() async throws {
        let persistence = HubPersistence(journal: InMemorySessionJournal(), history: InMemoryHistoryWriter(),
                                         learners: InMemoryLearnerRecords())
        try await HubTestServer.with(persistence: persistence, adjust: { $0.enableEcho = true }) { port, _ in
            // /echo never says welcome: connect waits for it until the connection closes.
            let client = try SessionHubClient(url: "ws://127.0.0.1:\(port)/echo") { HubTestServer.token("ana") }
            let waiting = Task { try await client.connect() }
            // Close once the socket is open (until then there is nothing to close); bounded.
            for _ in 0..<50 {
                try await Task.sleep(for: .milliseconds(100))
                await client.close()
                if case .closed = await client.state { break }
            }
            do {
                _ = try await waiting.value
                Issue.record("connect succeeded on /echo")
            } catch let SessionHubClientError.connectionClosed(code, _) {
                #expect(code == 1000)
            }
        }
    }

    /// Waits until `client` is connected and in a session whose model has applied `seq`.
    static func back(_ client: SessionHubClient, at seq: Int) async throws -> SessionModel {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if case .connected = await client.state, await client.isInSession, let model = await client.session, model.seq >= seq {
                return model
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw SessionHubClientError.timedOut(request: "back at seq \(seq), state \(await client.state)")
    }

    static let quickReconnect = ReconnectPolicy(initialDelay: .milliseconds(50), maxDelay: .milliseconds(200))

    /// Ana (direct) hosts a two-player session that Ben joins through a TCP proxy that can cut
    /// his connection; Ben comes back quickly.
    static func pairThroughProxy(_ port: Int) async throws -> (TCPProxy, SessionHubClient, SessionHubClient, Scenario) {
        let proxy = try await TCPProxy(to: port)
        let ana = try client(port, "ana")
        let ben = try SessionHubClient(url: "ws://127.0.0.1:\(proxy.port)/ws", reconnect: quickReconnect) {
            HubTestServer.token("ben")
        }
        try await ana.connect()
        try await ben.connect()
        let scenario = try #require(try await ana.scenarios().first { $0.maxPlayers >= 2 })
        let code = try #require(try await ana.host(scenarioId: scenario.id).joinCode)
        _ = try await ben.join(code: code)
        return (proxy, ana, ben, scenario)
    }

    @Test("A dropped connection comes back by itself and resumes: the model goes on with exactly what it missed")
    func dropAndResume() async throws {
        try await HubTestServer.with { port in
            let (proxy, ana, ben, _) = try await Self.pairThroughProxy(port)
            _ = try await ana.say("Primera", translation: "First")
            _ = try await Self.settle(ben, at: try #require(await ana.session).seq)

            for round in 1...3 {
                proxy.sever()
                // Ana goes on while Ben is away; his resume replays it.
                _ = try await ana.say("Mientras tanto \(round)", translation: "Meanwhile \(round)")
                let model = try await Self.back(ben, at: try #require(await ana.session).seq)
                _ = try await ben.say("Ya estoy \(round)", translation: "I'm back \(round)")
                // Ben's say returned on his own copy; Ana's may still be on its way.
                let target = max(try #require(await ana.session).seq, try #require(await ben.session).seq)
                let both = try await Self.settleTogether([ana, ben], at: target)
                #expect(Self.shared(both[1]) == Self.shared(both[0]), "round \(round): after the resume both models are the same")
                #expect(model.lines.count >= round * 2)
            }
            let transcript = try await Self.settle(ana, at: try #require(await ben.session).seq)
            #expect(transcript.lines.map(\.speakerId) == ["ana", "ana", "ben", "ana", "ben", "ana", "ben"])
            await ana.close()
            await ben.close()
            await proxy.stop()
        }
    }

    @Test("While the hub cannot be reached the client keeps trying; close() stops it")
    func closeStopsReconnecting() async throws {
        try await HubTestServer.with { port in
            let proxy = try await TCPProxy(to: port)
            let ben = try SessionHubClient(url: "ws://127.0.0.1:\(proxy.port)/ws", reconnect: Self.quickReconnect) {
                HubTestServer.token("ben")
            }
            try await ben.connect()
            await proxy.stop()
            let deadline = ContinuousClock.now + .seconds(5)
            var attempts = 0
            while ContinuousClock.now < deadline {
                if case .reconnecting(let attempt) = await ben.state { attempts = attempt }
                if attempts >= 3 { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(attempts >= 3, "kept trying while the hub was unreachable")
            await ben.close()
            try await Task.sleep(for: .milliseconds(300))
            guard case .closed = await ben.state else {
                Issue.record("after close(): \(await ben.state)")
                return
            }
        }
    }

    @Test("Lines said just before, during and after drops are each recorded exactly once, in the order said")
    func linesSurviveDrops() async throws {
        try await HubTestServer.with { port in
            let (proxy, ana, ben, scenario) = try await Self.pairThroughProxy(port)

            var said: [String] = []
            // Four rounds: eight lines stay below the scenario's goal (which would end the session).
            #expect(scenario.goal.lines > 8)
            for round in 1...4 {
                // One line on its way when the connection is cut (it may or may not have reached
                // the hub), one said while the client is away.
                let inFlight = "En camino \(round)", offline = "Sin conexión \(round)"
                let first = Task { try await ben.say(inFlight) }
                try await Task.sleep(for: .microseconds(Int.random(in: 0...3000)))
                proxy.sever()
                try await Task.sleep(for: .milliseconds(5))
                let second = Task { try await ben.say(offline) }
                let lines = [try await first.value, try await second.value]
                #expect(lines.map(\.textNative) == [inFlight, offline])
                #expect(lines.allSatisfy { $0.speakerId == "ben" && $0.clientId != nil })
                said += [inFlight, offline]
            }
            let target = try #require(await ben.session).seq
            let transcript = try await Self.settle(ana, at: target)
            let bens = transcript.lines.filter { $0.speakerId == "ben" }.map(\.textNative)
            #expect(bens == said, "every line once, in the order said")
            #expect(try await Self.settle(ben, at: target).lines == transcript.lines)
            await ana.close()
            await ben.close()
            await proxy.stop()
        }
    }

    @Test("A line said again under the same clientId is the line recorded the first time, not a second one")
    func repeatedClientId() async throws {
        try await HubTestServer.with { port in
            let ana = try Self.client(port, "ana")
            try await ana.connect()
            _ = try await ana.startSolo(scenarioId: try #require(try await ana.scenarios().first).id)
            let first = try await ana.say("Hola", translation: "Hello", clientId: "mine-1")
            let again = try await ana.say("Hola", translation: "Hello", clientId: "mine-1")
            #expect(again == first)
            #expect(try #require(await ana.session).lines.filter { $0.clientId == "mine-1" }.count == 1)
            await ana.close()
        }
    }

    /// A throw-away certificate for `localhost` and 127.0.0.1, made with the `openssl` command.
    static func throwAwayCertificate() async throws -> (certificate: NIOSSLCertificate, key: NIOSSLPrivateKey) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sessionhub-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = directory.appendingPathComponent("key.pem").path, cert = directory.appendingPathComponent("cert.pem").path
        let openssl = try ChildProcess.spawn("/usr/bin/env", arguments: [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
            environment: ProcessInfo.processInfo.environment, output: .discard, errors: .capture)
        let ended = await openssl.waitForExit()
        await openssl.waitForStreams()
        guard ended == ChildProcess.Termination(status: 0, signaled: false) else {
            throw SessionHubClientError.transport("openssl req failed: \(String(decoding: openssl.standardError, as: UTF8.self))")
        }
        return (try NIOSSLCertificate.fromPEMFile(cert)[0], try NIOSSLPrivateKey(file: key, format: .pem))
    }

    @Test("Over wss:// through a TLS front with a throw-away certificate; a client that does not trust it is refused")
    func secureConnection() async throws {
        let (certificate, key) = try await Self.throwAwayCertificate()
        let serverTLS = try NIOSSLContext(configuration: .makeServerConfiguration(certificateChain: [.certificate(certificate)],
                                                                                   privateKey: .privateKey(key)))
        try await HubTestServer.with { port in
            let front = try await TCPProxy(to: port, tls: serverTLS)
            var trusting = TLSConfiguration.makeClientConfiguration()
            trusting.trustRoots = .certificates([certificate])
            let ana = try SessionHubClient(url: "wss://localhost:\(front.port)/ws", tls: trusting) { HubTestServer.token("ana") }
            let ben = try SessionHubClient(url: "wss://localhost:\(front.port)/ws", tls: trusting) { HubTestServer.token("ben") }
            try await ana.connect()
            try await ben.connect()
            let scenario = try #require(try await ana.scenarios().first { $0.maxPlayers >= 2 })
            let code = try #require(try await ana.host(scenarioId: scenario.id).joinCode)
            _ = try await ben.join(code: code)
            let line = try await ben.say("Hola por TLS", translation: "Hello over TLS")
            let model = try await Self.settle(ana, at: try #require(await ben.session).seq)
            #expect(model.lines.last == line)

            // The system's trust roots do not know the throw-away certificate.
            let doubting = try SessionHubClient(url: "wss://localhost:\(front.port)/ws") { HubTestServer.token("cleo") }
            await #expect(throws: SessionHubClientError.self) { try await doubting.connect() }
            await ana.close()
            await ben.close()
            await front.stop()
        }
    }

    @Test("An app killed mid-session and started again gets its seat back from its store, and its unsent line goes out once")
    func relaunchFromStore() async throws {
        try await HubTestServer.with { port in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("sessionhub-seat-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: file) }
            let proxy = try await TCPProxy(to: port)
            let ana = try Self.client(port, "ana")
            try await ana.connect()
            let scenario = try #require(try await ana.scenarios().first { $0.maxPlayers >= 2 })
            let code = try #require(try await ana.host(scenarioId: scenario.id).joinCode)
            // The first launch: no reconnecting, so that the drop below is the app's death.
            let first = try SessionHubClient(url: "ws://127.0.0.1:\(proxy.port)/ws", reconnect: nil,
                                             store: FileClientStore(url: file)) { HubTestServer.token("ben") }
            try await first.connect()
            _ = try await first.join(code: code)
            _ = try await first.say("Antes", translation: "Before")
            _ = try await ana.say("Mientras", translation: "Meanwhile")
            // A line on its way when the app dies (lost in the network): the store holds it.
            proxy.loseClientBytes(true)
            let lastWords = Task { try await first.say("Justo antes de morir", translation: "Right before dying") }
            let deadline = ContinuousClock.now + .seconds(15)
            while ContinuousClock.now < deadline {
                if let saved = try? await FileClientStore(url: file).load(),
                   saved.unsentLines.contains(where: { $0.text == "Justo antes de morir" }) { break }
                try await Task.sleep(for: .milliseconds(5))
            }
            let saved = try #require(try await FileClientStore(url: file).load())
            #expect(saved.unsentLines.map(\.text) == ["Justo antes de morir"])
            // Kill: copy the file as it is now (what a dead app leaves), then cut the connection.
            let relaunchFile = file.appendingPathExtension("relaunch")
            defer { try? FileManager.default.removeItem(at: relaunchFile) }
            try FileManager.default.copyItem(at: file, to: relaunchFile)
            proxy.sever()
            proxy.loseClientBytes(false)
            _ = try? await lastWords.value

            let second = try SessionHubClient(url: "ws://127.0.0.1:\(proxy.port)/ws", store: FileClientStore(url: relaunchFile)) {
                HubTestServer.token("ben")
            }
            try await second.connect()
            #expect(await second.isInSession, "the seat came back without a join")
            let target = try #require(await ana.session).seq
            var model = try await Self.settle(second, at: target)
            let deadline2 = ContinuousClock.now + .seconds(5)
            while model.lines.filter({ $0.textNative == "Justo antes de morir" }).isEmpty, ContinuousClock.now < deadline2 {
                try await Task.sleep(for: .milliseconds(10))
                model = try #require(await second.session)
            }
            let both = try await Self.settleTogether([ana, second], at: model.seq)
            let anas = both[0]
            #expect(anas.lines.filter { $0.textNative == "Justo antes de morir" }.count == 1, "the unsent line once")
            #expect(anas.lines.map(\.textNative).prefix(2) == ["Antes", "Mientras"])
            #expect(Self.shared(both[1]) == Self.shared(anas))
            await ana.close()
            await second.close()
            await proxy.stop()
        }
    }
}
