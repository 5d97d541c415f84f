/// How the bot takes part in a session.
enum BotMode: Sendable, Equatable {
    /// One player in a SOLO session (`startSolo`).
    case solo
    /// A host and `players − 1` clients, all played by this process.
    case host(players: Int)
    /// One player joining someone else's session by its code.
    case join(code: String)

    /// How many players this process runs.
    var playerCount: Int {
        if case .host(let players) = self { return players }
        return 1
    }

    /// Whether the bot joins someone else's session (its other participants are not ours).
    var isGuest: Bool {
        if case .join = self { return true }
        return false
    }

    /// The code given with `--join`.
    var joinCode: String? {
        if case .join(let code) = self { return code }
        return nil
    }

    /// `solo`, `host` or `join` (the summary's `mode`).
    var name: String {
        switch self {
        case .solo: "solo"
        case .host: "host"
        case .join: "join"
        }
    }
}
