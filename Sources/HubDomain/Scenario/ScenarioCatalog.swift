import Foundation

/// The scenarios a hub offers: the built-in files shipped with the package plus an operator's
/// directory, validated at start.
public struct ScenarioCatalog: Sendable {
    /// Scenarios by id.
    public let scenarios: [String: Scenario]

    /// All scenarios, sorted by title.
    public var all: [Scenario] { scenarios.values.sorted { ($0.title, $0.id) < ($1.title, $1.id) } }

    /// Looks a scenario up.
    public func scenario(id: String) -> Scenario? { scenarios[id] }

    /// A catalogue of exactly these scenarios (tests).
    public init(_ scenarios: [Scenario]) {
        var byId: [String: Scenario] = [:]
        for scenario in scenarios { byId[scenario.id] = scenario }
        self.scenarios = byId
    }

    /// Loads the built-in scenarios, then every `*.json` in `directory` (which add to them and
    /// replace a built-in one with the same id).
    /// - Throws: ``ScenarioCatalogError`` naming the file and the problem.
    public static func load(directory: String? = nil) throws -> ScenarioCatalog {
        var scenarios: [Scenario] = []
        if let builtIn = Bundle.module.resourceURL?.appendingPathComponent("Scenarios") {
            scenarios += try loadDirectory(builtIn)
        }
        if let directory {
            scenarios += try loadDirectory(URL(fileURLWithPath: directory))
        }
        if scenarios.isEmpty { throw ScenarioCatalogError(file: directory ?? "built-in", problem: "no scenarios found") }
        return ScenarioCatalog(scenarios)
    }

    private static func loadDirectory(_ url: URL) throws -> [Scenario] {
        let files: [URL]
        do {
            files = try FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)
                .filter { $0.pathExtension == "json" }
                .sorted { $0.lastPathComponent < $1.lastPathComponent }
        } catch {
            throw ScenarioCatalogError(file: url.path, problem: "cannot read directory: \(error.localizedDescription)")
        }
        return try files.map(loadFile)
    }

    private static func loadFile(_ url: URL) throws -> Scenario {
        let scenario: Scenario
        do {
            scenario = try JSONDecoder().decode(Scenario.self, from: Data(contentsOf: url))
        } catch let error as DecodingError {
            throw ScenarioCatalogError(file: url.path, problem: "invalid JSON: \(error.shortDescription)")
        } catch {
            throw ScenarioCatalogError(file: url.path, problem: "cannot read: \(error.localizedDescription)")
        }
        var errors = scenario.validationErrors()
        let expectedName = scenario.id + ".json"
        if url.lastPathComponent != expectedName {
            errors.append("id '\(scenario.id)' does not match the file name (name it \(expectedName))")
        }
        if !errors.isEmpty { throw ScenarioCatalogError(file: url.path, problem: errors.joined(separator: "; ")) }
        return scenario
    }
}

extension DecodingError {
    /// A one-line description naming the field.
    var shortDescription: String {
        func path(_ context: Context) -> String {
            context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch self {
        case .keyNotFound(let key, let context):
            let prefix = path(context)
            return "missing field \(prefix.isEmpty ? key.stringValue : prefix + "." + key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "wrong type at \(path(context))"
        case .dataCorrupted(let context):
            return context.debugDescription
        @unknown default:
            return "\(self)"
        }
    }
}
