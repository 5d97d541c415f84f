/// The schema of the journal's own SQLite file (`…-journal.sqlite` beside the store's file):
/// the open sessions' headers and entries, and nothing else, so that the journal's commits take
/// a write lock no history write, learner write or checkpoint of the main file holds.
public enum SQLiteJournalSchema {
    /// Every step, in order.
    public static let migrations: [SQLiteMigration] = [v1, v2, v3, v4]

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

    /// Version 3: the entries in the order they were committed (`pos`, the row id), each
    /// session's header with the position before which none of its rows lies (`first_pos`).
    /// Every commit now appends at the table's end, whatever sessions it carries: about 2 WAL
    /// frames per one-entry commit against 3.7 for the session-clustered table, whose pages a
    /// 2.9 KB `stats` row split and rebalanced (measured:
    /// loadtest/results/journal-on-loop-20261129). An ended session's header goes at once and
    /// its rows with the range older than every open session's `first_pos`
    /// (``SQLiteJournal``). The store's file gets the same table (``SQLiteSchema/v7``).
    public static let v3 = SQLiteMigration(version: 3, name: "journal in commit order", sql: commitOrderSQL)

    /// Version 4: the open sessions' headers indexed by `first_pos`. Every session's end asks
    /// for the oldest open session's `first_pos` (``SQLiteJournal``): without the index that
    /// read every header, the column last in each row, on each end (about 1 % of the hub's CPU
    /// with 667 sessions open; loadtest/results/hub-path-profile-20261129). The store's
    /// file gets the same index (``SQLiteSchema/v8``).
    public static let v4 = SQLiteMigration(version: 4, name: "headers by first position", sql: firstPosIndexSQL)

    /// The index of ``v4``.
    static let firstPosIndexSQL = "CREATE INDEX journal_sessions_by_first_pos ON journal_sessions (first_pos);"

    /// Rebuilds `journal` in commit order and gives `journal_sessions` its `first_pos` (0 for
    /// the sessions already open: nothing of theirs is dropped before they end).
    static let commitOrderSQL = """
        CREATE TABLE journal_by_position (
            pos        INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL,
            seq        INTEGER NOT NULL,
            timestamp  INTEGER NOT NULL,
            kind       TEXT NOT NULL,
            body       BLOB NOT NULL
        );
        INSERT INTO journal_by_position (session_id, seq, timestamp, kind, body)
            SELECT session_id, seq, timestamp, kind, body FROM journal ORDER BY session_id, seq;
        DROP TABLE journal;
        ALTER TABLE journal_by_position RENAME TO journal;
        ALTER TABLE journal_sessions ADD COLUMN first_pos INTEGER NOT NULL DEFAULT 0;
        """

    /// The entries' table (``SQLiteSchema/v1`` made it too: the same text, kept in one place).
    static let entriesTable = "CREATE TABLE journal (\(entriesColumns))"

    /// The entries' columns and key, as versions 1 and 2 of the table have them.
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
