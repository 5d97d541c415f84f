/// How a journal write ended, as `sessionhub_journal_writes_total` labels it (`result`).
enum JournalWriteResult: String, CaseIterable, Sendable {
    /// Durable.
    case ok
    /// The store did not take it.
    case failed
    /// Another node owns the session.
    case fenced
}
