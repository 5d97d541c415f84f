extension TranscriptPrinter {
    /// The end of the human transcript: each player's final figures, the resumes, and the verdict.
    /// The problems themselves go to standard error (``complain(_:)``).
    func summarize(_ report: BotReport) {
        if report.sessionId != nil { note("") }
        for player in report.players where report.sessionId != nil {
            var text = "\(player.userId)"
            if let role = player.roleName { text += " (\(role)\(player.mode.map { ", \($0)" } ?? ""))" }
            text += ": \(player.linesSpoken) lines, \(player.recastsGiven) recasts given, \(player.recastsAccepted) accepted"
            if let xp = player.xpEarned, let stats = player.stats {
                let parts = stats.xpBreakdown
                text += " · \(xp) XP (dialog \(parts.dialogCompletion), vocabulary \(parts.vocabularyBonus), accuracy \(parts.accuracyBonus), "
                    + "collaboration \(parts.collaborationBonus), streak \(parts.streakBonus))"
            } else {
                text += " · no final figures"
            }
            if let history = player.history { text += " · history \(history.reason.map { "\(history.status)(\($0))" } ?? history.status)" }
            if player.connections > 1 { text += " · \(player.connections) connections" }
            note(text)
        }
        for resume in report.resumes {
            let seqs = resume.replayedSeqs.isEmpty ? "nothing" : "#\(resume.replayedSeqs[0])–#\(resume.replayedSeqs[resume.replayedSeqs.count - 1])"
            note("resume: \(resume.userId) from #\(resume.lastSeq), \(resume.mode ?? "no answer"), \(resume.replayed) replayed (\(seqs)): "
                 + (resume.complete ? "complete" : "INCOMPLETE"))
        }
        let seconds = String(Double(report.elapsedMs) / 1000)
        if report.ok {
            note("OK: session ended (\(report.cause ?? "?")) · \(report.linesSpoken) lines, \(report.recasts) recasts, "
                 + "\(report.recastsAccepted) accepted · every seq in order · \(seconds) s · seed \(report.seed)")
        } else {
            note("FAILED (exit \(report.exitCode)): \(report.problems.count) problem\(report.problems.count == 1 ? "" : "s") "
                 + "(on standard error) · \(seconds) s · seed \(report.seed)")
        }
    }
}
