/// Why a bot run failed, and the process exit code that says so (see `docs/BOT.md`).
enum BotFailure: Error, Sendable, CustomStringConvertible {
    /// The session did not go as expected: a seq gap or duplicate, an unexpected error message,
    /// a missing `ended`, figures that do not add up. Exit code 1.
    case check(String)
    /// The bot could not take part: token command failed, no connection, authentication refused,
    /// connection lost. Exit code 2.
    case setup(String)
    /// Something expected did not arrive in time, or the run hit `--timeout`. Exit code 3.
    case timeout(String)

    /// The process exit code.
    var exitCode: Int32 {
        switch self {
        case .check: 1
        case .setup: 2
        case .timeout: 3
        }
    }

    /// A readable message.
    var description: String {
        switch self {
        case .check(let message): message
        case .setup(let message): message
        case .timeout(let message): "timed out: \(message)"
        }
    }
}
