import HubDomain

/// The outcome of ``RemoteHistoryRepository/saveSession(_:)``, as the SDK's `HistorySaveResult`:
/// `Success(session)` or `Error(reason)`.
///
/// (The hub's `ended` message reports its own history writes with `HubDomain`'s result of the
/// same name, which carries no session; inside this module and in code that imports it, this
/// one is meant.)
public enum HistorySaveResult: Sendable, Equatable {
    /// Saved: the entry as the hub keeps it (the hub's own entry when it recorded the session).
    case success(HistorySession)
    /// Not saved, and why.
    case error(HistorySaveError)
}
