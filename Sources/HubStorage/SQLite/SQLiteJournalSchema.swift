/// The schema of the journal's own SQLite file (`…-journal.sqlite` beside the store's file):
/// the open sessions' headers and entries, and nothing else, so that the journal's commits take
/// a write lock no history write, learner write or checkpoint of the main file holds.
public enum SQLiteJournalSchema {
    /// Every step, in order.
    public static let migrations: [SQLiteMigration] = [v1, v2]

    /// Version 1: entries and session headers, as versions 1 and 2 of ``SQLiteSchema`` made them
    /// in the store's file.
    public static let v1 = SQLiteMigration(version: 1, name: "journal", sql: entriesTable + ";\n" + headersTable + ";")

    /// Version 2: the entries clustered by session (`WITHOUT ROWID`), so that a session's rows
    /// share a few pages. In a table ordered by row id, the rows of every open session
    /// interleave: dropping an ended session's rows rewrote pages shared with the other
    /// sessions, and each commit wrote the table's last page as well as one index page per
    /// session (measured: loadtest/results/journal-clustered-20261128).
    public static let v2 = SQLiteMigration(version: 2, name: "journal clustered by session", sql: """
        CREATE TABLE journal_by_session (\(entriesColumns)) WITHOUT ROWID;
        INSERT INTO journal_by_session (session_id, seq, timestamp, kind, body)
            SELECT session_id, seq, timestamp, kind, body FROM journal;
        DROP TABLE journal;
        ALTER TABLE journal_by_session RENAME TO journal;
        """)

    /// The entries' table (``SQLiteSchema/v1`` made it too: the same text, kept in one place).
    static let entriesTable = "CREATE TABLE journal (\(entriesColumns))"

    /// The entries' columns and key, as both versions of the table have them.
    static let entriesColumns = """

            session_id TEXT NOT NULL,
            seq        INTEGER NOT NULL,
            timestamp  INTEGER NOT NULL,
            kind       TEXT NOT NULL,
            body       BLOB NOT NULL,
            PRIMARY KEY (session_id, seq)

        """

    /// The open sessions' headers (``SQLiteSchema/v2`` made it too).
    static let headersTable = """
        CREATE TABLE journal_sessions (
            session_id TEXT PRIMARY KEY,
            started_at INTEGER NOT NULL,
            body       BLOB NOT NULL
        )
        """
}
