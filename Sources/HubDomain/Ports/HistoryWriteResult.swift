/// The outcome of saving an ended session to one participant's history: Success, or Error with a
/// reason. On the wire it has the shape of the SDK's `HistorySaveResult` (the client library's
/// type of that name also carries the saved session).
public enum HistoryWriteResult: Sendable, Equatable {
    /// Saved.
    case success
    /// Not saved, and why.
    case error(HistorySaveFailure)
}

