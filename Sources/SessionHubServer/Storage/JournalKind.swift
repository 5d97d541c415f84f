/// Which journal a node on SQLite keeps its live sessions in (`serve --journal`,
/// `SESSIONHUB_JOURNAL`).
public enum JournalKind: String, Sendable, CaseIterable {
    /// An SQLite file beside the store (`NAME-journal.sqlite`, ``HubStorage/SQLiteJournal``): the
    /// default.
    case sqlite
    /// An append-only log of segment files in a directory beside the store (`NAME-journal.log/`,
    /// ``HubStorage/LogJournal``): one write per group commit, no checkpoint.
    case log
}
