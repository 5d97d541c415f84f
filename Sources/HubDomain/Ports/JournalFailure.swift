/// Why a ``SessionJournal`` did not make a change durable. A session never broadcasts a change
/// whose append threw: it holds it (and refuses new changes) while the journal is
/// ``unavailable(_:)``, and lets its members go when it is ``fenced(sessionId:)``.
public enum JournalFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store could not commit (down, unreachable, disk full, closed). Retrying may succeed.
    case unavailable(String)
    /// This node no longer owns the session at the epoch it holds: another node adopted it.
    /// Nothing this node writes for the session will ever be accepted again.
    case fenced(sessionId: String)

    public var description: String {
        switch self {
        case .unavailable(let reason): "journal unavailable: \(reason)"
        case .fenced(let sessionId): "session \(sessionId) is owned by another node (fenced)"
        }
    }
}
