import HubDomain

/// What ``HistoryRepository/addSession(userId:session:)`` did with a session the user's app
/// saved on its own. Entries are keyed by `(user, sessionId)`.
public enum HistoryAddOutcome: Sendable, Equatable {
    /// Stored: the user had no entry with this id.
    case created(HistorySession)
    /// Nothing changed: the user's app saved an equal session with this id before (the stored one).
    case unchanged(HistorySession)
    /// Nothing changed: the user's app saved a different session with this id before (the stored one).
    case conflict(HistorySession)
    /// Nothing changed: the hub recorded a session with this id for this user (it counts in their
    /// progress). The hub's entry, or nil when the user's history does not hold it (they were not
    /// premium when it ended, or deleted it).
    case recordedByHub(HistorySession?)
}
