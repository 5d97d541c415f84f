/// Why a session ended.
public enum EndCause: String, Sendable, Codable {
    /// The host (or the solo player) ended it.
    case hostEnded
    /// The scenario's goal was reached.
    case goalReached
    /// Everyone left, or the last grace window expired.
    case abandoned
    /// An operator ended it.
    case operatorEnded
    /// The server is shutting down.
    case serverShutdown
}
