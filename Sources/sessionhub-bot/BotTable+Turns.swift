import HubDomain
import HubProtocol

extension BotTable {
    /// Solo and host mode: the players speak in turn (seat 0, 1, …, 0, 1, …) until each has said
    /// its lines or the goal is reached; the host then ends the session if the goal did not.
    /// With `--drop-after N`, the last seat drops after the session's N-th line; its turn passes
    /// until another player has spoken, and it resumes on its next turn after that (or before the
    /// goal line), so the replay holds what the others said while it was away.
    /// When the goal line was spoken (or a line raced the end), the hub is ending the session: its
    /// `ended` follows once the history is saved, and an `end` sent meanwhile would be refused, so
    /// the host waits for `ended` instead. Every line of the session is one of these players', so
    /// their own acknowledged lines tell when the goal was reached (the host's copy of the last
    /// line may not have arrived yet).
    func playInTurns(_ scenario: Scenario) async throws {
        let seats = players.count
        let goal = scenario.goal.lines
        let perPlayer = options.linesPerPlayer ?? (goal + seats - 1) / seats
        let script = BotLineScript(scenario: scenario)
        let victim = seats - 1
        let planned = min(goal, perPlayer * seats)
        if let dropAfter = options.dropAfter, dropAfter >= planned {
            let id = await players[0].end()
            try? await expectDone(players[0], id, "\(players[0].label)'s end")
            throw BotFailure.check("--drop-after \(dropAfter) needs more than \(dropAfter) lines in the session, but this run speaks "
                                   + "\(planned) (goal \(goal) of \(scenario.id), \(perPlayer) per player): lower --drop-after")
        }
        var spoken = Array(repeating: 0, count: seats)
        var counter = 0
        var dropped = false
        var away = false
        var linesWhileAway = 0
        var turn = 0
        var sessionEnding = false
        speaking: while spoken.contains(where: { $0 < perPlayer }) {
            let seat = turn % seats
            turn += 1
            guard spoken[seat] < perPlayer else { continue }
            if let dropAfter = options.dropAfter, !dropped, spoken.reduce(0, +) >= dropAfter {
                try await settle()
                try await drop(victim)
                dropped = true
                away = true
            }
            let observer = players[away && victim == 0 ? victim : 0]
            let linesSoFar = await observer.linesInSession
            if await observer.ended != nil || linesSoFar >= goal {
                sessionEnding = true
                break
            }
            let goalLine = linesSoFar + 1 == goal
            let othersCanSpeak = spoken.indices.contains { $0 != victim && spoken[$0] < perPlayer }
            if away, seat == victim, linesWhileAway == 0, !goalLine, othersCanSpeak {
                continue  // its turn passes: the others speak while it is away, so the replay has lines in it
            }
            if away, seat == victim || goalLine {
                try await resume(victim)
                away = false
            }
            if goalLine { try await settle() }
            try await Task.sleep(for: options.pace)
            counter += 1
            let player = players[seat]
            let line = script.line(role: await player.roleName ?? "", turn: spoken[seat], counter: counter)
            let id = await player.say(line)
            switch try await answer(player, id, "\(player.label)'s line \(counter)") {
            case .done, .pending:
                spoken[seat] += 1
                if away { linesWhileAway += 1 }
                if goalLine || spoken.reduce(0, +) >= goal { sessionEnding = true }
            case .refused(let code, _) where code == "session_ended":
                sessionEnding = true
                break speaking
            case .refused(let code, let message):
                throw BotFailure.check("\(player.label)'s line \(counter) was refused: \(code): \(message)")
            case .redirected:
                throw BotFailure.check("\(player.label)'s line \(counter) was answered session_elsewhere")
            }
        }
        if away { try await resume(victim) }
        if let dropAfter = options.dropAfter, !dropped {
            throw BotFailure.check("--drop-after \(dropAfter): only \(spoken.reduce(0, +)) lines were spoken, nobody was dropped")
        }
        if !sessionEnding, await players[0].ended == nil {
            try await settle()
            let id = await players[0].end()
            try await expectDone(players[0], id, "\(players[0].label)'s end")
        }
        try await awaitTheEnd()
    }
}
