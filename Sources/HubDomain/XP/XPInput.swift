/// What the XP rules look at for one participant of one session.
public struct XPInput: Sendable, Equatable {
    public var linesSpoken: Int
    /// Words new to this user in this language, first met in this session.
    public var newWords: Int
    /// Recasts others made of this participant's lines.
    public var recastsReceived: Int
    /// Of those, the ones this participant accepted.
    public var recastsAccepted: Int
    /// Recasts this participant gave that their speaker accepted.
    public var recastsGivenAccepted: Int
    /// HOST/CLIENT session (collaboration XP applies).
    public var multiplayer: Bool
    /// The scenario's goal was reached.
    public var goalReached: Bool
    /// Consecutive UTC days with a session, this one included (≥ 1).
    public var streakDays: Int

    /// Creates the input.
    public init(linesSpoken: Int, newWords: Int, recastsReceived: Int, recastsAccepted: Int,
                recastsGivenAccepted: Int, multiplayer: Bool, goalReached: Bool, streakDays: Int) {
        self.linesSpoken = linesSpoken
        self.newWords = newWords
        self.recastsReceived = recastsReceived
        self.recastsAccepted = recastsAccepted
        self.recastsGivenAccepted = recastsGivenAccepted
        self.multiplayer = multiplayer
        self.goalReached = goalReached
        self.streakDays = streakDays
    }
}
