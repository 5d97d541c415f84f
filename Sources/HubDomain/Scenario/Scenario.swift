/// A situation to act out ("Ordering Coffee"), loaded from a JSON file (see `docs/SCENARIOS.md`).
public struct Scenario: Codable, Sendable, Equatable {
    /// Stable identifier: 1 to 64 characters of `a-z`, `0-9` and `-`.
    public var id: String
    /// Display name, e.g. "Ordering Coffee".
    public var title: String
    /// One or two sentences describing the situation.
    public var summary: String
    /// ISO 639-1 code of the practised language.
    public var targetLanguage: String
    /// CEFR level, A1 to C2.
    public var level: String
    /// The parts; assigned to players in order as they join (and repeated when players outnumber them).
    public var roles: [ScenarioRole]
    /// The fewest players it is written for (at least 1); the hub does not enforce it.
    public var minPlayers: Int
    /// The most players a shared session of it seats (2 to 8; the hub's limit may be lower).
    public var maxPlayers: Int
    /// What completes the scenario: the lines to speak in total.
    public var goal: ScenarioGoal
    /// 5 to 10 useful phrases, each for one of the roles.
    public var hints: [ScenarioHint]

    /// The problems with this scenario, empty when it is valid.
    public func validationErrors() -> [String] {
        var errors: [String] = []
        let idOK = !id.isEmpty && id.utf8.count <= 64 && id.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 }
        if !idOK { errors.append("id must be 1 to 64 characters of a-z, 0-9 and '-'") }
        func blank(_ text: String) -> Bool { text.allSatisfy(\.isWhitespace) }
        if blank(title) { errors.append("title is empty") }
        if blank(summary) { errors.append("summary is empty") }
        if targetLanguage.utf8.count != 2 || !targetLanguage.utf8.allSatisfy({ $0 >= 97 && $0 <= 122 }) {
            errors.append("targetLanguage must be a lowercase two-letter ISO 639-1 code")
        }
        if CEFRLevel(rawValue: level) == nil { errors.append("level must be one of A1..C2") }
        if roles.count < 2 || roles.count > 6 { errors.append("roles must hold 2 to 6 roles") }
        if Set(roles.map(\.name)).count != roles.count { errors.append("role names must be unique") }
        if roles.contains(where: { blank($0.name) }) { errors.append("a role name is empty") }
        if minPlayers < 1 || minPlayers > maxPlayers { errors.append("minPlayers must be 1...maxPlayers") }
        if maxPlayers < 2 || maxPlayers > 8 { errors.append("maxPlayers must be 2 to 8") }
        if goal.lines < 8 || goal.lines > 30 { errors.append("goal.lines must be 8 to 30") }
        if hints.count < 5 || hints.count > 10 { errors.append("hints must hold 5 to 10 phrases") }
        if hints.contains(where: { blank($0.textNative) || blank($0.textTranslated) }) { errors.append("a hint text is empty") }
        let roleNames = Set(roles.map(\.name))
        for hint in hints where !roleNames.contains(hint.roleName) {
            errors.append("hint role '\(hint.roleName)' is not a role of the scenario")
        }
        return errors
    }

    /// The role for the `index`-th seat (0-based), cycling through the roles.
    public func role(forSeat index: Int) -> String {
        roles.isEmpty ? "Player" : roles[index % roles.count].name
    }
}
