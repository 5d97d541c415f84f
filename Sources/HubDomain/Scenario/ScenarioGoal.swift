/// What counts as finishing a scenario: a number of lines spoken in the session.
public struct ScenarioGoal: Codable, Sendable, Equatable {
    /// Lines (by everyone together) that reach the goal; the session then ends.
    public var lines: Int
    public var description: String
}
