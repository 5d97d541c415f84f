/// What a session tells the hub's registry about itself.
public enum SessionNotice: Sendable {
    /// The user no longer holds a seat (left, removed, or grace expired).
    case departed(userId: String)
    /// The session is over; every seat is released.
    case ended(userIds: [String])
    /// Another node owns the session now (its journal fenced this one): every seat is released
    /// here without ending it; its players resume on the new owner.
    case moved(userIds: [String])
}
