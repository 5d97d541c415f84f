import HubDomain

/// The outcome of ``RemoteHistoryRepository/saveSession(_:)``, as the SDK's `HistorySaveResult`:
/// `Success(session)` or `Error(reason)`.
///
/// `HubDomain` has a type of the same name (the hub's own write result in `ended`, without a
/// session). A file that imports both modules names this one `RemoteHistoryRepository.SaveResult`
/// (or, with Swift 6.3, `SessionHubClient::HistorySaveResult`); matching `.success`/`.error`
/// needs no name.
public enum HistorySaveResult: Sendable, Equatable {
    /// Saved: the entry as the hub keeps it (the hub's own entry when it recorded the session).
    case success(HistorySession)
    /// Not saved, and why.
    case error(HistorySaveError)
}
