/// Why a session let go of a participant's link.
public enum DetachReason: String, Sendable, Codable {
    /// The same user resumed on another connection.
    case replaced
    /// An operator removed the participant.
    case removed
    /// The participant left.
    case left
    /// The session ended (after `ended` was delivered).
    case ended
}
