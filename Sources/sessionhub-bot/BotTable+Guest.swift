import HubDomain
import HubProtocol

extension BotTable {
    /// Join mode: the one player speaks its lines at `--pace-ms` without waiting for anyone
    /// (other players are not ours), then waits for the host to end the session or for the goal.
    /// With `--drop-after N` it drops after its own N-th line and resumes at once.
    func playAsGuest(_ scenario: Scenario) async throws {
        let player = players[0]
        let present = max(1, await player.session?.participants.count ?? 1)
        let perPlayer = options.linesPerPlayer ?? (scenario.goal.lines + present - 1) / present
        let script = BotLineScript(scenario: scenario)
        var dropped = false
        for turn in 0..<perPlayer {
            if let dropAfter = options.dropAfter, !dropped, turn >= dropAfter {
                try await dropAndResume()
                dropped = true
            }
            if await player.ended != nil { break }
            try await Task.sleep(for: options.pace)
            let id = await player.say(script.line(role: await player.roleName ?? "", turn: turn, counter: turn + 1))
            if case .refused(let code, let message) = try await answer(player, id, "\(player.label)'s line \(turn + 1)") {
                if ["session_ended", "not_in_session"].contains(code) { break }
                throw BotFailure.check("\(player.label)'s line \(turn + 1) was refused: \(code): \(message)")
            }
        }
        if let dropAfter = options.dropAfter, !dropped {
            guard await player.ended == nil else {
                throw BotFailure.check("--drop-after \(dropAfter): the session ended before the drop")
            }
            try await dropAndResume()
        }
        printer.note("· \(player.label) has said its lines; waiting for the session to end")
        try await awaitTheEnd(timeout: options.timeout)
    }

    private func dropAndResume() async throws {
        try await drop(0)
        try await Task.sleep(for: options.pace)
        try await resume(0)
    }
}
