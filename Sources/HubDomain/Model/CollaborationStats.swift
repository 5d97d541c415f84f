/// Collaboration counters of one participant in one session (they add up in the user's progress).
public struct CollaborationStats: Codable, Sendable, Equatable {
    /// Recasts of your lines that you accepted.
    public var successfulRepairs: Int
    /// Your recasts that their speaker accepted.
    public var helpGiven: Int
    /// 1 when this was a multiplayer session that reached the scenario's goal, else 0.
    public var teamWins: Int

    /// Creates counters.
    public init(successfulRepairs: Int = 0, helpGiven: Int = 0, teamWins: Int = 0) {
        self.successfulRepairs = successfulRepairs
        self.helpGiven = helpGiven
        self.teamWins = teamWins
    }
}
