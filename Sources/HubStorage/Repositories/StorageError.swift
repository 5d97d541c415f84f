/// A store that could not do what was asked.
public struct StorageError: Error, Sendable, CustomStringConvertible {
    /// What failed, for logs (never user data or secrets).
    public var message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    public var description: String { "storage: \(message)" }
}
