/// Which journal a node on SQLite keeps its live sessions in (`serve --journal`,
/// `SESSIONHUB_JOURNAL`; ``default`` when neither names one).
public enum JournalKind: String, Sendable, CaseIterable {
    /// An SQLite file beside the store (`NAME-journal.sqlite`, ``HubStorage/SQLiteJournal``): a
    /// B-tree in WAL mode, checkpointed in the background (`--journal sqlite`).
    case sqlite
    /// An append-only log of segment files in a directory beside the store (`NAME-journal.log/`,
    /// ``HubStorage/LogJournal``): one write per group commit, no checkpoint. The ``default``.
    case log

    /// The journal `sessionhub serve` and ``HubPersistence/sqlite(path:logger:commitInterval:commitLoop:journal:)``
    /// use unless told otherwise: the one place that says which.
    ///
    /// The log journal, since it was hardened after three reviews (d8b38ec): with one event loop
    /// the journal commits on that loop, and the SQLite journal's B-tree, WAL and checkpoint work
    /// held it for every connection; the log's single `pwrite` per group commit does not. The
    /// one-core ceiling of the hub-path load (`loadtest/ceiling.sh`) was about 19,100–20,300
    /// deliveries/s on the log against about 16,200 on SQLite (docs/STORAGE.md, "The log
    /// journal"). Its durability matches the SQLite journal's (`synchronous=NORMAL`: a sync about
    /// every 500 ms). `--journal sqlite` keeps the SQLite journal; open sessions move over when the
    /// kind changes between restarts, so a node that ran on the old default moves its journal
    /// into the log at its next start.
    public static let `default`: JournalKind = .log
}
