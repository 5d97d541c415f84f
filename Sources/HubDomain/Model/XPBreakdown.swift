/// Where a participant's XP came from, as in the SDK's `XpBreakdown`.
public struct XPBreakdown: Codable, Sendable, Equatable {
    /// 10 per line spoken, +50 when the scenario's goal was reached.
    public var dialogCompletion: Int
    /// 2 per word new to the user in this language, at most 50.
    public var vocabularyBonus: Int
    /// From 3 lines spoken: max(0, 30 − 10 × recasts received and not accepted).
    public var accuracyBonus: Int
    /// Multiplayer only: 10 per recast given that its speaker accepted, +25 for a team win.
    public var collaborationBonus: Int
    /// Subtotal × 5% × min(current streak in days, 10), rounded down.
    public var streakBonus: Int

    /// The sum of all parts.
    public var total: Int { dialogCompletion + vocabularyBonus + accuracyBonus + collaborationBonus + streakBonus }

    /// A breakdown of zeros.
    public static let zero = XPBreakdown(dialogCompletion: 0, vocabularyBonus: 0, accuracyBonus: 0, collaborationBonus: 0, streakBonus: 0)

    /// Creates a breakdown.
    public init(dialogCompletion: Int, vocabularyBonus: Int, accuracyBonus: Int, collaborationBonus: Int, streakBonus: Int) {
        self.dialogCompletion = dialogCompletion
        self.vocabularyBonus = vocabularyBonus
        self.accuracyBonus = accuracyBonus
        self.collaborationBonus = collaborationBonus
        self.streakBonus = streakBonus
    }
}
