/// A scenario file that cannot be used.
public struct ScenarioCatalogError: Error, CustomStringConvertible {
    /// The file (or directory).
    public var file: String
    /// What is wrong.
    public var problem: String
    public var description: String { "scenario file \(file): \(problem)" }
}
