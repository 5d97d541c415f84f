/// The bot's JSON summary (`--json`): one object printed at the end of the run. Its shape is
/// documented in `docs/BOT.md`.
struct BotReport: Sendable, Encodable {
    /// True when the exit code is 0.
    var ok: Bool
    var exitCode: Int32
    /// `solo`, `host` or `join`.
    var mode: String
    /// The seed of the players' random choices (`--seed` to repeat the run).
    var seed: UInt64
    var scenarioId: String?
    /// The scenario's `goal.lines`: lines spoken in total that end the session with `goalReached`.
    var goalLines: Int?
    var sessionId: String?
    var joinCode: String?
    /// Whether `ended` was received.
    var ended: Bool
    /// `ended.cause`.
    var cause: String?
    var goalReached: Bool?
    var durationSeconds: Int?
    /// Lines the bot's players spoke (acknowledged), all together.
    var linesSpoken: Int
    /// Recasts the bot's players made (acknowledged).
    var recasts: Int
    /// Recasts the bot's players accepted.
    var recastsAccepted: Int
    /// Every drop and resume.
    var resumes: [ResumeRecord]
    var players: [PlayerReport]
    /// Everything that went wrong; empty when `ok`.
    var problems: [String]
    /// Wall-clock time of the run.
    var elapsedMs: Int
    /// Own lines' time from `say` on the wire to their own `line` broadcast, all players
    /// together; null when no line was acknowledged.
    var lineLatencyMs: LineLatency? = nil

    private enum CodingKeys: String, CodingKey {
        case ok, exitCode, mode, seed, scenarioId, goalLines, sessionId, joinCode, ended, cause, goalReached,
             durationSeconds, linesSpoken, recasts, recastsAccepted, resumes, players, problems, elapsedMs, lineLatencyMs
    }

    /// Every field, `null` included: the summary always has the same keys.
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(ok, forKey: .ok)
        try c.encode(exitCode, forKey: .exitCode)
        try c.encode(mode, forKey: .mode)
        try c.encode(seed, forKey: .seed)
        try c.encode(scenarioId, forKey: .scenarioId)
        try c.encode(goalLines, forKey: .goalLines)
        try c.encode(sessionId, forKey: .sessionId)
        try c.encode(joinCode, forKey: .joinCode)
        try c.encode(ended, forKey: .ended)
        try c.encode(cause, forKey: .cause)
        try c.encode(goalReached, forKey: .goalReached)
        try c.encode(durationSeconds, forKey: .durationSeconds)
        try c.encode(linesSpoken, forKey: .linesSpoken)
        try c.encode(recasts, forKey: .recasts)
        try c.encode(recastsAccepted, forKey: .recastsAccepted)
        try c.encode(resumes, forKey: .resumes)
        try c.encode(players, forKey: .players)
        try c.encode(problems, forKey: .problems)
        try c.encode(elapsedMs, forKey: .elapsedMs)
        try c.encode(lineLatencyMs, forKey: .lineLatencyMs)
    }
}
