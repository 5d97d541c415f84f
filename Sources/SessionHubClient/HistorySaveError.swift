/// Why ``RemoteHistoryRepository/saveSession(_:)`` did not save: the SDK's two reasons, plus the
/// hub's refusal of the session itself.
public enum HistorySaveError: Error, Sendable, Equatable {
    /// History is a premium feature and the user is not premium (`feature_locked`).
    case featureLocked
    /// The hub could not be reached, did not answer in time, or could not store the session
    /// now (5xx, 429): trying again later can succeed.
    case networkError
    /// The hub refused this session for good (trying again does not help): `code` is the API's
    /// stable code — `bad_request`, `text_too_long`, `session_limit`, `http_413` (a body over the
    /// hub's `http.maxApiBodySize`), `history_conflict` (a different session with this id is stored), `token_*` — and
    /// `message` says which field. A local repository of the SDK never answers this.
    case rejected(code: String, message: String)
}
