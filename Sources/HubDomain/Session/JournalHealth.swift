/// Whether a session's journal takes its changes. A ``LiveSession`` delivers a change only once
/// its journal write succeeded, so this decides whether the session moves on.
enum JournalHealth: Equatable, Sendable {
    /// Writes succeed; changes are delivered as they become durable.
    case healthy
    /// A write failed (the store is down, unreachable, full): the failed change and every one
    /// behind it are held, undelivered; new requests are refused with `journal_unavailable`; the
    /// session writes the held change again on each tick and moves on once it is taken.
    case holding(since: Int64, reason: String)
    /// The journal refused a write because another node owns the session now. Terminal.
    case fenced
}
