/// A part a player takes in a scenario.
public struct ScenarioRole: Codable, Sendable, Equatable {
    public var name: String
    public var description: String
}
