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
    /// Another node owns the session now: the connection should be closed so the client
    /// reconnects and resumes there.
    case moved
    /// This node handed the session over to its peers (a rolling upgrade): the connection should
    /// be closed with "going away" so the client reconnects and resumes on a peer.
    case handedOver
}
