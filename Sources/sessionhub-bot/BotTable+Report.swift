import HubDomain
import HubProtocol

extension BotTable {
    /// The run's verdict: every player's report with its final figures from `ended`, the resumes,
    /// the table-wide checks, and the exit code — 0 only when the session ended as expected on
    /// every player with no problem (no seq gap, duplicate, refused request or figure that does
    /// not add up), else the failure's code or 1.
    func report(failure: BotFailure?, elapsedMs: Int) async -> BotReport {
        var problems: [String] = []
        var reports: [PlayerReport] = []
        var resumes: [ResumeRecord] = []
        var endings: [ServerMessage.EndedBroadcast] = []
        var latencies: [Duration] = []
        for player in players {
            var report = await player.report()
            problems += report.problems.map { "\(report.userId): \($0)" }
            resumes += await player.resumes
            latencies += await player.lineLatencies
            if let ended = await player.ended {
                endings.append(ended)
                if let figures = ended.participants.first(where: { $0.userId == report.userId }) {
                    report.fill(from: figures)
                }
            }
            reports.append(report)
        }
        let first = await players.first?.session
        let ended = endings.first
        if failure == nil {
            problems += checks(reports, endings: endings)
        }
        let exitCode: Int32 = failure?.exitCode ?? (problems.isEmpty ? 0 : BotFailure.check("").exitCode)
        if let failure { problems.insert(failure.description, at: 0) }
        return BotReport(ok: exitCode == 0, exitCode: exitCode, mode: options.mode.name, seed: options.seed,
                         scenarioId: first?.scenario.id ?? (options.mode.isGuest ? nil : options.scenarioId),
                         goalLines: first?.scenario.goal.lines, sessionId: first?.sessionId, joinCode: first?.joinCode,
                         ended: ended != nil, cause: ended?.cause.rawValue, goalReached: ended?.goalReached,
                         durationSeconds: ended?.durationSeconds,
                         linesSpoken: reports.reduce(0) { $0 + $1.linesSpoken },
                         recasts: reports.reduce(0) { $0 + $1.recastsGiven },
                         recastsAccepted: reports.reduce(0) { $0 + $1.recastsAccepted },
                         resumes: resumes, players: reports, problems: problems, elapsedMs: elapsedMs,
                         lineLatencyMs: LineLatency(latencies))
    }

    /// Checks of a run that went through: everyone got the same `ended` for an expected cause,
    /// every request was answered, and the hub's final figures match what the players saw acknowledged.
    private func checks(_ reports: [PlayerReport], endings: [ServerMessage.EndedBroadcast]) -> [String] {
        var problems: [String] = []
        for report in reports where !report.receivedEnded {
            problems.append("\(report.userId) did not receive ended")
        }
        if let ended = endings.first {
            if Set(endings.map(\.seq)).count > 1 {
                problems.append("the players received ended with different seqs: \(endings.map(\.seq))")
            }
            if ![.hostEnded, .goalReached].contains(ended.cause) {
                problems.append("the session ended with cause \(ended.cause.rawValue), expected hostEnded or goalReached")
            }
        }
        for report in reports {
            if report.unanswered > 0 {
                problems.append("\(report.userId) has \(report.unanswered) unanswered request\(report.unanswered == 1 ? "" : "s")")
            }
            guard report.receivedEnded else { continue }
            guard let stats = report.stats else {
                problems.append("\(report.userId) is missing from ended.participants")
                continue
            }
            if stats.linesSpoken != report.linesSpoken {
                problems.append("\(report.userId): ended says \(stats.linesSpoken) lines spoken, the bot saw \(report.linesSpoken) acknowledged")
            }
            if stats.errorsCorrected != report.recastsAccepted {
                problems.append("\(report.userId): ended says \(stats.errorsCorrected) corrections accepted, the bot saw \(report.recastsAccepted)")
            }
        }
        // In solo and host mode every participant is ours: the recasts they made are the recasts of their lines.
        if !options.mode.isGuest, reports.allSatisfy({ $0.stats != nil }) {
            let given = reports.reduce(0) { $0 + $1.recastsGiven }
            let detected = reports.reduce(0) { $0 + ($1.stats?.errorsDetected ?? 0) }
            if given != detected {
                problems.append("the players made \(given) recasts, but ended counts \(detected) recasts of their lines")
            }
        }
        return problems
    }
}
