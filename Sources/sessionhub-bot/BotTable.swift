import Foundation
import HubDomain
import HubProtocol

/// Runs one bot session from start to verdict: mints tokens, connects the players, starts or
/// joins the session, has the players speak in turn (reacting to each other with recasts and
/// acceptances), optionally drops and resumes one of them, ends the session, and checks that
/// everything arrived as the protocol promises. The result is a ``BotReport``.
struct BotTable: Sendable {
    let options: BotOptions
    let printer: TranscriptPrinter
    /// Seat 0 is the host (or the only player); the last seat is the one that drops.
    let players: [BotPlayer]

    /// A table for `options`; nothing connects before ``run()``.
    init(options: BotOptions, printer: TranscriptPrinter) {
        self.options = options
        self.printer = printer
        let behaviour = BotPlayer.Behaviour(recastProbability: options.recastProbability,
                                            acceptProbability: options.acceptProbability)
        players = (0..<options.mode.playerCount).map { index in
            let (tokens, userId, name) = (options.tokens, options.userId(forPlayer: index), options.displayName(forPlayer: index))
            return BotPlayer(label: userId, url: options.url, printer: printer, behaviour: behaviour, seed: options.seed,
                             stream: UInt64(index)) {
                try await tokens.token(forPlayer: index, userId: userId, displayName: name)
            }
        }
    }

    /// Plays the session within `options.timeout`, closes every connection and reports.
    func run() async -> BotReport {
        let started = ContinuousClock.now
        var failure: BotFailure?
        do {
            try await withTimeout(options.timeout) { try await self.play() }
        } catch let error as BotFailure {
            failure = error
        } catch {
            failure = .setup("\(error)")
        }
        var connectedAtEnd: [Bool] = []
        for player in players { connectedAtEnd.append(await player.isConnected) }
        if failure != nil { await leaveSeats() }
        await closeAll()
        let elapsed = ContinuousClock.now - started
        var report = await report(failure: failure, elapsedMs: Int(elapsed / .milliseconds(1)))
        for index in report.players.indices where connectedAtEnd.indices.contains(index) {
            report.players[index].connectedAtEnd = connectedAtEnd[index]
        }
        return report
    }

    /// Runs `body`, or fails with ``BotFailure/timeout(_:)`` once `limit` has passed.
    private func withTimeout(_ limit: Duration, _ body: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: limit)
                throw BotFailure.timeout("the run took longer than --timeout \(limit.components.seconds) s")
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// The whole session.
    private func play() async throws {
        try await connectEveryone()
        let snapshot = try await startSession()
        printer.note(banner(snapshot))
        for client in players.dropFirst() {
            let code = snapshot.joinCode ?? ""
            if case .refused(let code, let message) = try await place(client, "\(client.label)'s join", { await $0.join(code: code) }) {
                throw BotFailure.check("\(client.label)'s join was refused: \(code): \(message)")
            }
        }
        if case .join = options.mode {
            try await playAsGuest(snapshot.scenario)
        } else {
            try await playInTurns(snapshot.scenario)
        }
    }

    /// Mints each player's token and connects it; every one must be welcomed and free to play.
    private func connectEveryone() async throws {
        for (index, player) in players.enumerated() {
            let token = try await options.tokens.token(forPlayer: index, userId: options.userId(forPlayer: index),
                                                       displayName: options.displayName(forPlayer: index))
            try await player.connect(token: token)
            let welcome = try await awaitWelcome(player)
            if let held = welcome.resumableSessionId {
                throw BotFailure.setup("\(welcome.userId) still holds a seat in session \(held) (an earlier run?): wait "
                                       + "\(welcome.limits["graceSeconds"] ?? HubConfiguration.defaultGraceSeconds) s for its grace window, or use another --user-prefix")
            }
        }
    }

    /// Waits for `welcome` on `player`'s current connection.
    func awaitWelcome(_ player: BotPlayer) async throws -> ServerMessage.Welcome {
        try await Poll.until("\(player.label)'s welcome", timeout: .seconds(10)) { () async throws -> ServerMessage.Welcome? in
            switch await player.welcomeStatus() {
            case .waiting: return nil
            case .welcomed(let welcome): return welcome
            case .closed(let reason): throw BotFailure.setup("\(player.label) was not let in: \(reason)")
            }
        }
    }

    /// Seat 0 starts (solo, host) or joins (join) the session; its snapshot.
    private func startSession() async throws -> ServerMessage.Snapshot {
        let first = players[0]
        let id: String
        switch options.mode {
        case .solo: id = await first.startSolo(scenarioId: options.scenarioId)
        case .host(let count): id = await first.host(scenarioId: options.scenarioId, maxPlayers: count >= 2 ? count : nil)
        case .join(let code): id = await first.join(code: code)
        }
        let outcome = try await answer(first, id, "\(first.label)'s \(options.mode.name)")
        if case .refused(let code, let message) = outcome {
            throw Self.startRefusal(code: code, message: message, options: options)
        }
        guard let snapshot = await first.session else { throw BotFailure.check("\(first.label) has no session after joined") }
        return snapshot
    }

    /// Sends a request that seats `player` (`join`); the client follows `session_elsewhere` to the
    /// node that owns the session by itself. Its answer.
    func place(_ player: BotPlayer, _ what: String, _ request: @escaping @Sendable (BotPlayer) async -> String?) async throws -> RequestOutcome {
        guard let id = await request(player) else { throw BotFailure.check("\(what): nothing to send") }
        let outcome = try await answer(player, id, what)
        if case .redirected(let url, _) = outcome {
            throw BotFailure.check("\(what) was still answered session_elsewhere (\(url ?? "no node")) after the client's redirects")
        }
        return outcome
    }

    /// Waits for request `id` of `player` to be answered; a refusal or a lost connection fails the run.
    func expectDone(_ player: BotPlayer, _ id: String, _ what: String, timeout: Duration = .seconds(15)) async throws {
        if case .refused(let code, let message) = try await answer(player, id, what, timeout: timeout) {
            throw BotFailure.check("\(what) was refused: \(code): \(message)")
        }
    }

    /// Waits for request `id` of `player` to be answered.
    func answer(_ player: BotPlayer, _ id: String, _ what: String, timeout: Duration = .seconds(15)) async throws -> RequestOutcome {
        try await Poll.until(what, timeout: timeout) { () async throws -> RequestOutcome? in
            let outcome = await player.outcome(of: id)
            if outcome != .pending { return outcome }
            if await !player.isConnected { throw BotFailure.setup("\(player.label) lost its connection waiting for \(what)") }
            return nil
        }
    }

    /// Waits until every connected player has received `ended` and `left{ended}`, then until
    /// their last requests are answered.
    func awaitTheEnd(timeout: Duration = .seconds(15)) async throws {
        try await Poll.until("ended on every connected player", timeout: timeout, every: .milliseconds(10)) { () async -> Bool? in
            for player in players {
                if await player.isConnected, await !player.isDone { return nil }
            }
            return true
        }
        _ = try? await Poll.until("answers to the last requests", timeout: .seconds(2), every: .milliseconds(10)) { () async -> Bool? in
            for player in players {
                if await player.isConnected, await !player.isIdle { return nil }
            }
            return true
        }
    }

    /// After a failure: every player still seated leaves, so its seat is not held for the grace
    /// window (a rerun with the same users would otherwise be refused for that long).
    private func leaveSeats() async {
        var leaving: [(BotPlayer, String)] = []
        for player in players {
            if let id = await player.leaveIfSeated() { leaving.append((player, id)) }
        }
        for (player, id) in leaving {
            _ = try? await answer(player, id, "\(player.label)'s leave", timeout: .seconds(2))
        }
    }

    /// Closes every open connection normally and waits (briefly) for the closes to complete.
    private func closeAll() async {
        for player in players { await player.close() }
        _ = try? await Poll.until("connections to close", timeout: .seconds(3), every: .milliseconds(10)) { () async -> Bool? in
            for player in players {
                if await player.isConnected { return nil }
            }
            return true
        }
    }

    /// Why starting (or joining) was refused, as a failure: an unknown scenario or join code, a
    /// full session or a bad `--players` are setup problems (exit 2); anything else is a check failure.
    static func startRefusal(code: String, message: String, options: BotOptions) -> BotFailure {
        switch code {
        case "unknown_scenario":
            return .setup("unknown scenario \"\(options.scenarioId)\": the hub has no scenario with that id (\(message)); "
                          + "see docs/SCENARIOS.md or send {\"type\":\"scenarios\"} for the ids")
        case "unknown_join_code":
            return .setup("no live session has the join code \(options.mode.joinCode ?? "?") (\(message))")
        case "session_full":
            return .setup("the session with join code \(options.mode.joinCode ?? "?") is full (\(message))")
        case "join_locked":
            return .setup("the hub refuses joins for now after too many wrong join codes (\(message))")
        case "invalid_field":
            return .setup("the hub refused the session settings: \(message) (does --players fit the scenario's maxPlayers?)")
        case "already_in_session", "hub_full":
            return .setup("the hub refused to seat the player: \(code): \(message)")
        default:
            return .check("\(options.mode.name) was refused: \(code): \(message)")
        }
    }

    private func banner(_ snapshot: ServerMessage.Snapshot) -> String {
        let scenario = snapshot.scenario
        var text = "\(scenario.title) (\(scenario.id), \(scenario.targetLanguage) \(scenario.level)) · session \(snapshot.sessionId)"
        if let code = snapshot.joinCode { text += " · join code \(code)" }
        text += "\n  roles: \(scenario.roles.map(\.name).joined(separator: ", ")) · goal: \(scenario.goal.lines) lines — \(scenario.goal.description)"
        return text
    }
}
