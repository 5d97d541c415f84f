/// How a participant takes part in a session, as in the SDK's `SessionMode`.
public enum SessionMode: String, Codable, Sendable, CaseIterable {
    /// Alone (with an optional tutor bot).
    case solo = "SOLO"
    /// Created a shared session and holds its join code.
    case host = "HOST"
    /// Joined someone else's shared session.
    case client = "CLIENT"
}
