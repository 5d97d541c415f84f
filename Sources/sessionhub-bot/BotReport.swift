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
}
