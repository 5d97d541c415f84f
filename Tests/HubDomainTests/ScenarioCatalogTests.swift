import Foundation
import HubDomain
import Testing

@Suite("ScenarioCatalog")
struct ScenarioCatalogTests {
    /// A fresh directory holding `files` (name → contents); removed by the caller.
    static func directory(_ files: [String: String]) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hubdomain-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        for (name, contents) in files {
            try Data(contents.utf8).write(to: url.appendingPathComponent(name))
        }
        return url
    }

    static func remove(_ url: URL) { try? FileManager.default.removeItem(at: url) }

    @Test func builtInCatalogueLoadsAtLeastSixValidScenarios() throws {
        let catalog = try ScenarioCatalog.load()
        #expect(catalog.scenarios.count >= 6)
        for scenario in catalog.all {
            #expect(scenario.validationErrors().isEmpty, "\(scenario.id): \(scenario.validationErrors())")
        }
        let coffee = try #require(catalog.scenario(id: "ordering-coffee"))
        #expect(coffee.title == "Ordering Coffee")
        #expect(coffee.targetLanguage == "es")
        #expect(coffee.roles.map(\.name) == ["Barista", "Customer"])
        #expect(coffee.maxPlayers == 4)
        #expect(coffee.goal.lines == 12)
    }

    @Test func builtInScenarioIdsAreUniqueAndKeyedById() throws {
        let catalog = try ScenarioCatalog.load()
        for (id, scenario) in catalog.scenarios { #expect(id == scenario.id) }
        #expect(Set(catalog.all.map(\.id)).count == catalog.all.count)
    }

    @Test func allIsSortedByTitle() throws {
        let titles = try ScenarioCatalog.load().all.map(\.title)
        #expect(titles == titles.sorted())
    }

    @Test func unknownIdIsNil() throws {
        #expect(try ScenarioCatalog.load().scenario(id: "no-such-scenario") == nil)
    }

    @Test func invalidJSONFileMakesLoadThrowNamingTheFile() throws {
        let dir = try Self.directory(["good.json": Fixtures.scenarioJSON(id: "good"), "broken.json": "{ \"id\": "])
        defer { Self.remove(dir) }
        let error = try #require(throws: ScenarioCatalogError.self) { try ScenarioCatalog.load(directory: dir.path) }
        #expect(error.file.hasSuffix("broken.json"))
        #expect(error.problem.contains("invalid JSON"))
        #expect(error.description.contains("broken.json"))
    }

    @Test func missingFieldIsNamed() throws {
        let json = Fixtures.scenarioJSON(id: "no-goal").replacingOccurrences(of: #""goal""#, with: #""gaol""#)
        let dir = try Self.directory(["no-goal.json": json])
        defer { Self.remove(dir) }
        let error = try #require(throws: ScenarioCatalogError.self) { try ScenarioCatalog.load(directory: dir.path) }
        #expect(error.file.hasSuffix("no-goal.json"))
        #expect(error.problem.contains("missing field goal"))
    }

    @Test func fileThatFailsValidationMakesLoadThrowWithTheProblems() throws {
        let dir = try Self.directory(["bad-level.json": Fixtures.scenarioJSON(id: "bad-level", level: "Z9", maxPlayers: 9)])
        defer { Self.remove(dir) }
        let error = try #require(throws: ScenarioCatalogError.self) { try ScenarioCatalog.load(directory: dir.path) }
        #expect(error.file.hasSuffix("bad-level.json"))
        #expect(error.problem.contains("level"))
        #expect(error.problem.contains("maxPlayers"))
    }

    @Test func missingDirectoryMakesLoadThrowNamingIt() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hubdomain-missing-\(UUID().uuidString)").path
        let error = try #require(throws: ScenarioCatalogError.self) { try ScenarioCatalog.load(directory: path) }
        #expect(error.file.contains("hubdomain-missing-"))
    }

    @Test func extraValidFileIsAdded() throws {
        let builtIn = try ScenarioCatalog.load()
        let dir = try Self.directory(["test-cafe.json": Fixtures.scenarioJSON(), "notes.txt": "not a scenario {"])
        defer { Self.remove(dir) }
        let catalog = try ScenarioCatalog.load(directory: dir.path)
        #expect(catalog.scenarios.count == builtIn.scenarios.count + 1)
        #expect(catalog.scenario(id: Fixtures.scenarioId)?.title == "Test Café")
        #expect(catalog.scenario(id: "ordering-coffee") != nil)
    }

    @Test func fileWithABuiltInIdReplacesIt() throws {
        let builtIn = try ScenarioCatalog.load()
        let json = Fixtures.scenarioJSON(id: "ordering-coffee", title: "Pedir un café", goalLines: 20)
        let dir = try Self.directory(["ordering-coffee.json": json])
        defer { Self.remove(dir) }
        let catalog = try ScenarioCatalog.load(directory: dir.path)
        #expect(catalog.scenarios.count == builtIn.scenarios.count)
        let coffee = try #require(catalog.scenario(id: "ordering-coffee"))
        #expect(coffee.title == "Pedir un café")
        #expect(coffee.goal.lines == 20)
    }

    @Test func emptyDirectoryKeepsTheBuiltIns() throws {
        let dir = try Self.directory([:])
        defer { Self.remove(dir) }
        #expect(try ScenarioCatalog.load(directory: dir.path).scenarios.count == ScenarioCatalog.load().scenarios.count)
    }

    @Test func explicitCatalogueHoldsExactlyItsScenarios() {
        let catalog = ScenarioCatalog([Fixtures.scenario(id: "a-one", title: "B"), Fixtures.scenario(id: "b-two", title: "A")])
        #expect(catalog.scenarios.count == 2)
        #expect(catalog.all.map(\.id) == ["b-two", "a-one"])
    }
}
