import WebSocketTransport

/// A bot run's settings, validated from the command line by ``PlayCommand``.
struct BotOptions: Sendable {
    /// The hub's `/ws` endpoint.
    var url: WebSocketURL
    /// Where the players' tokens come from.
    var tokens: TokenSource
    /// Solo, host with N players, or join.
    var mode: BotMode
    /// The scenario to start (solo and host).
    var scenarioId: String
    /// Lines per player; nil: enough to reach the scenario's goal.
    var linesPerPlayer: Int?
    /// Pause before each line.
    var pace: Duration
    /// Chance that a player corrects another player's line.
    var recastProbability: Double
    /// Chance that a speaker accepts a correction of their line.
    var acceptProbability: Double
    /// Drop one player's connection after this many lines, then resume.
    var dropAfter: Int?
    /// Print one JSON summary instead of the live transcript.
    var json: Bool
    /// Limit for the whole run.
    var timeout: Duration
    /// Seed of the players' random choices.
    var seed: UInt64
    /// User ids are `<prefix>-1`, `<prefix>-2`, … (with `--token-cmd`).
    var userPrefix: String

    /// The user id asked for the `index`-th player (0-based).
    func userId(forPlayer index: Int) -> String { "\(userPrefix)-\(index + 1)" }

    /// The display name asked for the `index`-th player (0-based).
    func displayName(forPlayer index: Int) -> String {
        let prefix = userPrefix.prefix(1).uppercased() + userPrefix.dropFirst()
        return "\(prefix) \(index + 1)"
    }
}
