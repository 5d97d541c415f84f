import Foundation
import HubDomain
import Testing

@Suite("Scenario validation")
struct ScenarioValidationTests {
    static func decode(_ json: String) throws -> Scenario {
        try JSONDecoder().decode(Scenario.self, from: Data(json.utf8))
    }

    @Test func fixtureScenarioIsValid() throws {
        #expect(try Self.decode(Fixtures.scenarioJSON()).validationErrors() == [])
    }

    /// A scenario file breaking one rule, and a word its error must contain.
    struct Case: CustomTestStringConvertible, Sendable {
        var json: String
        var mentions: String
        var testDescription: String
        init(_ label: String, _ json: String, mentions: String) {
            self.json = json
            self.mentions = mentions
            self.testDescription = label
        }
    }

    static let cases: [Case] = [
        Case("id with upper case and underscore", Fixtures.scenarioJSON(id: "Bad_Id"), mentions: "id"),
        Case("empty id", Fixtures.scenarioJSON(id: ""), mentions: "id"),
        Case("65-character id", Fixtures.scenarioJSON(id: String(repeating: "a", count: 65)), mentions: "id"),
        Case("empty title", Fixtures.scenarioJSON(title: ""), mentions: "title"),
        Case("three-letter language", Fixtures.scenarioJSON(language: "spa"), mentions: "targetLanguage"),
        Case("level D1", Fixtures.scenarioJSON(level: "D1"), mentions: "level"),
        Case("one role", Fixtures.scenarioJSON(roles: ["Solo"]), mentions: "roles"),
        Case("seven roles", Fixtures.scenarioJSON(roles: ["A", "B", "C", "D", "E", "F", "G"]), mentions: "roles"),
        Case("duplicate role", Fixtures.scenarioJSON(roles: ["Twin", "Twin"]), mentions: "unique"),
        Case("empty role name", Fixtures.scenarioJSON(roles: ["", "B"], hintRoles: Array(repeating: "B", count: 5)), mentions: "role name is empty"),
        Case("minPlayers 0", Fixtures.scenarioJSON(minPlayers: 0), mentions: "minPlayers"),
        Case("minPlayers above maxPlayers", Fixtures.scenarioJSON(minPlayers: 5, maxPlayers: 4), mentions: "minPlayers"),
        Case("maxPlayers 1", Fixtures.scenarioJSON(maxPlayers: 1), mentions: "maxPlayers"),
        Case("maxPlayers 9", Fixtures.scenarioJSON(maxPlayers: 9), mentions: "maxPlayers"),
        Case("goal of 0 lines", Fixtures.scenarioJSON(goalLines: 0), mentions: "goal.lines"),
        Case("hint for an unknown role", Fixtures.scenarioJSON(hintRoles: ["Barista", "Ghost", "Customer", "Barista", "Customer"]), mentions: "Ghost"),
    ]

    @Test(arguments: cases)
    func eachRuleIsReported(_ broken: Case) throws {
        let errors = try Self.decode(broken.json).validationErrors()
        #expect(errors.count == 1, "\(errors)")
        #expect(errors.contains { $0.contains(broken.mentions) }, "\(errors)")
    }

    @Test func roleForSeatCyclesThroughRolesInOrder() throws {
        let scenario = try Self.decode(Fixtures.scenarioJSON(roles: ["A", "B", "C"]))
        #expect((0..<7).map(scenario.role(forSeat:)) == ["A", "B", "C", "A", "B", "C", "A"])
    }

    // docs/SCENARIOS.md documents stricter rules than `validationErrors()` checks, and says the hub
    // refuses to start on a file that breaks them ("the validator reports the same rules").

    @Test
    func goalLinesOutsideDocumentedRangeIsRefused() throws {
        #expect(try !Self.decode(Fixtures.scenarioJSON(goalLines: 7)).validationErrors().isEmpty)
        #expect(try !Self.decode(Fixtures.scenarioJSON(goalLines: 31)).validationErrors().isEmpty)
    }

    @Test
    func hintCountOutsideDocumentedRangeIsRefused() throws {
        #expect(try !Self.decode(Fixtures.scenarioJSON(hintRoles: ["Barista"])).validationErrors().isEmpty)
    }

    @Test
    func idMustEqualFileName() throws {
        let dir = try ScenarioCatalogTests.directory(["other-name.json": Fixtures.scenarioJSON(id: "test-cafe")])
        defer { ScenarioCatalogTests.remove(dir) }
        #expect(throws: ScenarioCatalogError.self) { try ScenarioCatalog.load(directory: dir.path) }
    }

    @Test
    func languageMustBeLowercaseAndTextsNotBlank() throws {
        #expect(try !Self.decode(Fixtures.scenarioJSON(language: "ES")).validationErrors().isEmpty)
        let blankSummary = Fixtures.scenarioJSON().replacingOccurrences(of: "A test situation.", with: "  ")
        #expect(try !Self.decode(blankSummary).validationErrors().isEmpty)
    }
}
