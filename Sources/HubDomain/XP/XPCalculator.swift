/// The XP rules (DESIGN.md; documented in `docs/PROTOCOL.md`). Pure and deterministic.
public enum XPCalculator {
    /// The breakdown for one participant.
    public static func breakdown(for input: XPInput) -> XPBreakdown {
        let lines = max(0, input.linesSpoken)
        let dialogCompletion = 10 * lines + (input.goalReached ? 50 : 0)
        let vocabularyBonus = min(50, 2 * max(0, input.newWords))
        let unaccepted = max(0, input.recastsReceived - input.recastsAccepted)
        let accuracyBonus = lines >= 3 ? max(0, 30 - 10 * unaccepted) : 0
        var collaborationBonus = 0
        if input.multiplayer {
            collaborationBonus = 10 * max(0, input.recastsGivenAccepted) + (input.goalReached ? 25 : 0)
        }
        let subtotal = dialogCompletion + vocabularyBonus + accuracyBonus + collaborationBonus
        // subtotal × 5% × min(streak, 10), in integers: floor(subtotal × 5 × days / 100).
        let days = min(max(0, input.streakDays), 10)
        let streakBonus = subtotal * 5 * days / 100
        return XPBreakdown(dialogCompletion: dialogCompletion, vocabularyBonus: vocabularyBonus,
                           accuracyBonus: accuracyBonus, collaborationBonus: collaborationBonus,
                           streakBonus: streakBonus)
    }

    /// Level for a total: 1 + ⌊√(totalXP / 100)⌋ (computed in integers, exact).
    public static func level(totalXP: Int) -> Int {
        let hundreds = max(0, totalXP) / 100
        var root = Int(Double(hundreds).squareRoot())
        while root * root > hundreds { root -= 1 }
        while (root + 1) * (root + 1) <= hundreds { root += 1 }
        return 1 + root
    }
}
