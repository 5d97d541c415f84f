import HubDomain
import Testing

/// DESIGN.md, "XP": each rule with exact numbers.
@Suite("XP rules")
struct XPCalculatorTests {
    /// An input with everything at zero except what a test sets.
    static func input(lines: Int = 0, newWords: Int = 0, received: Int = 0, accepted: Int = 0,
                      givenAccepted: Int = 0, multiplayer: Bool = false, goal: Bool = false,
                      streak: Int = 0) -> XPInput {
        XPInput(linesSpoken: lines, newWords: newWords, recastsReceived: received, recastsAccepted: accepted,
                recastsGivenAccepted: givenAccepted, multiplayer: multiplayer, goalReached: goal, streakDays: streak)
    }

    @Test func nothingDoneEarnsNothing() {
        #expect(XPCalculator.breakdown(for: Self.input()) == .zero)
        #expect(XPCalculator.breakdown(for: Self.input(multiplayer: true, streak: 10)) == .zero)
    }

    // MARK: dialogCompletion

    @Test(arguments: [(0, false, 0), (1, false, 10), (7, false, 70), (7, true, 120), (0, true, 50), (100, true, 1050)])
    func dialogCompletionIsTenPerLinePlusFiftyForTheGoal(lines: Int, goal: Bool, expected: Int) {
        #expect(XPCalculator.breakdown(for: Self.input(lines: lines, goal: goal)).dialogCompletion == expected)
    }

    // MARK: vocabularyBonus

    @Test(arguments: [(0, 0), (1, 2), (24, 48), (25, 50), (26, 50), (1000, 50), (-3, 0)])
    func vocabularyBonusIsTwoPerNewWordCappedAtFifty(newWords: Int, expected: Int) {
        #expect(XPCalculator.breakdown(for: Self.input(newWords: newWords)).vocabularyBonus == expected)
    }

    // MARK: accuracyBonus

    @Test(arguments: [0, 1, 2])
    func accuracyBonusNeedsThreeLines(lines: Int) {
        #expect(XPCalculator.breakdown(for: Self.input(lines: lines)).accuracyBonus == 0)
    }

    @Test(arguments: [
        (3, 0, 0, 30), (3, 1, 0, 20), (3, 2, 0, 10), (3, 3, 0, 0), (10, 5, 0, 0),
        (3, 3, 2, 20), (3, 2, 2, 30), (12, 4, 1, 0), (4, 1, 1, 30),
    ])
    func accuracyBonusLosesTenPerUnacceptedRecast(lines: Int, received: Int, accepted: Int, expected: Int) {
        let xp = XPCalculator.breakdown(for: Self.input(lines: lines, received: received, accepted: accepted))
        #expect(xp.accuracyBonus == expected)
    }

    // MARK: collaborationBonus

    @Test func collaborationBonusIsMultiplayerOnly() {
        let solo = XPCalculator.breakdown(for: Self.input(givenAccepted: 3, multiplayer: false, goal: true))
        #expect(solo.collaborationBonus == 0)
    }

    @Test(arguments: [(0, false, 0), (1, false, 10), (3, false, 30), (0, true, 25), (3, true, 55)])
    func collaborationBonusIsTenPerAcceptedRecastGivenPlusTwentyFiveForATeamWin(givenAccepted: Int, goal: Bool, expected: Int) {
        let xp = XPCalculator.breakdown(for: Self.input(givenAccepted: givenAccepted, multiplayer: true, goal: goal))
        #expect(xp.collaborationBonus == expected)
    }

    // MARK: streakBonus

    /// Subtotal 60: 3 lines (30) + accuracy 30.
    @Test(arguments: [(0, 0), (1, 3), (2, 6), (3, 9), (9, 27), (10, 30), (11, 30), (365, 30)])
    func streakBonusIsFivePercentPerDayUpToTenDays(streak: Int, expected: Int) {
        let xp = XPCalculator.breakdown(for: Self.input(lines: 3, streak: streak))
        #expect(xp.dialogCompletion + xp.accuracyBonus == 60)
        #expect(xp.streakBonus == expected)
    }

    /// Subtotal 12 (1 line + 1 new word): 0.6, 1.2, 4.2 round down to 0, 1, 4.
    @Test(arguments: [(1, 0), (2, 1), (7, 4), (10, 6)])
    func streakBonusRoundsDown(streak: Int, expected: Int) {
        let xp = XPCalculator.breakdown(for: Self.input(lines: 1, newWords: 1, streak: streak))
        #expect(xp.streakBonus == expected)
    }

    @Test func streakBonusIsTakenOnTheWholeSubtotal() {
        // 4 lines (40) + goal (50) + 10 new words (20) + accuracy (30 - 10 = 20)
        // + collaboration (2 × 10 + 25 = 45) = 175; streak 4 → 175 × 20% = 35.
        let xp = XPCalculator.breakdown(for: Self.input(lines: 4, newWords: 10, received: 2, accepted: 1,
                                                        givenAccepted: 2, multiplayer: true, goal: true, streak: 4))
        #expect(xp == XPBreakdown(dialogCompletion: 90, vocabularyBonus: 20, accuracyBonus: 20,
                                  collaborationBonus: 45, streakBonus: 35))
        #expect(xp.total == 210)
    }

    @Test func totalIsTheSumOfTheParts() {
        let xp = XPBreakdown(dialogCompletion: 1, vocabularyBonus: 20, accuracyBonus: 300, collaborationBonus: 4000, streakBonus: 50000)
        #expect(xp.total == 54321)
    }

    @Test func breakdownIsDeterministic() {
        let input = Self.input(lines: 9, newWords: 13, received: 4, accepted: 2, givenAccepted: 1, multiplayer: true, goal: true, streak: 6)
        #expect(XPCalculator.breakdown(for: input) == XPCalculator.breakdown(for: input))
    }

    // MARK: Level

    @Test(arguments: [
        (0, 1), (1, 1), (99, 1), (100, 2), (399, 2), (400, 3), (899, 3), (900, 4),
        (9_999, 10), (10_000, 11), (1_000_000, 101), (-50, 1),
    ])
    func levelIsOnePlusFloorOfSquareRootOfHundreds(totalXP: Int, expected: Int) {
        #expect(XPCalculator.level(totalXP: totalXP) == expected)
    }

    @Test func levelIsExactForLargeTotalsAtPerfectSquares() {
        // 100 × n² is the first total of level n + 1.
        for n in [1_000, 30_000, 3_000_000] {
            #expect(XPCalculator.level(totalXP: 100 * n * n) == n + 1)
            #expect(XPCalculator.level(totalXP: 100 * n * n - 1) == n)
        }
    }
}
