import HubDomain

/// What a bot player says: the scenario's hints for its role, in order and round-robin, each
/// with a counter appended so that every line of a run is distinct (`"¿Cuánto es? (7)"`).
/// A role without hints of its own borrows all of the scenario's hints.
struct BotLineScript: Sendable {
    /// One line to speak.
    struct Line: Sendable, Equatable {
        /// The practised language.
        var textNative: String
        /// Its translation.
        var textTranslated: String

        /// Creates a line.
        init(textNative: String, textTranslated: String) {
            self.textNative = textNative
            self.textTranslated = textTranslated
        }
    }

    private let hintsByRole: [String: [ScenarioHint]]
    private let allHints: [ScenarioHint]

    /// A script for `scenario`.
    init(scenario: Scenario) {
        allHints = scenario.hints
        hintsByRole = Dictionary(grouping: scenario.hints, by: \.roleName)
    }

    /// The `turn`-th line (0-based) of a player in `role`, tagged with `counter`.
    func line(role: String, turn: Int, counter: Int) -> Line {
        let hints = hintsByRole[role] ?? allHints
        guard !hints.isEmpty else {
            return Line(textNative: "… (\(counter))", textTranslated: "… (\(counter))")
        }
        let hint = hints[max(0, turn) % hints.count]
        return Line(textNative: "\(hint.textNative) (\(counter))", textTranslated: "\(hint.textTranslated) (\(counter))")
    }
}
