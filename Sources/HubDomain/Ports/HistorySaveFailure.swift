/// Why a session was not saved to a participant's history (the SDK's reasons).
public enum HistorySaveFailure: String, Sendable, Codable {
    /// History is a premium feature and the user is not premium.
    case featureLocked
    /// The store could not be reached; the hub keeps the session and retries.
    case networkError
}
