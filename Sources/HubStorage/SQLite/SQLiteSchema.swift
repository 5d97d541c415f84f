/// The hub's SQLite schema, as versioned migrations (documented table by table in
/// `docs/STORAGE.md`). Add a new ``SQLiteMigration`` for every change; never edit an applied one.
public enum SQLiteSchema {
    /// Every step, in order.
    public static let migrations: [SQLiteMigration] = [v1, v2, v3, v4, v5, v6, v7, v8, v9, v10]

    /// Version 1: profiles, premium audit, history, progress, learner records, journal, sealed sessions.
    public static let v1 = SQLiteMigration(version: 1, name: "initial schema", sql: """
        CREATE TABLE users (
            id                      TEXT PRIMARY KEY,
            display_name            TEXT NOT NULL,
            native_language         TEXT NOT NULL,
            target_languages        TEXT NOT NULL DEFAULT '[]',
            current_target_language TEXT,
            interests               TEXT NOT NULL DEFAULT '[]',
            learning_goals          TEXT NOT NULL DEFAULT '[]',
            daily_goal_minutes      INTEGER NOT NULL,
            voice_speed             TEXT NOT NULL,
            show_translations       TEXT NOT NULL,
            is_premium              INTEGER NOT NULL DEFAULT 0,
            onboarding_completed    INTEGER NOT NULL DEFAULT 0,
            created_at              INTEGER NOT NULL,
            last_active_at          INTEGER NOT NULL
        );

        CREATE TABLE premium_changes (
            id         INTEGER PRIMARY KEY,
            user_id    TEXT NOT NULL REFERENCES users(id),
            is_premium INTEGER NOT NULL,
            actor      TEXT NOT NULL,
            changed_at INTEGER NOT NULL
        );
        CREATE INDEX premium_changes_by_user ON premium_changes (user_id, changed_at);

        CREATE TABLE history (
            user_id          TEXT NOT NULL REFERENCES users(id),
            session_id       TEXT NOT NULL,
            timestamp        INTEGER NOT NULL,
            scenario_title   TEXT NOT NULL,
            target_language  TEXT NOT NULL,
            duration_seconds INTEGER NOT NULL,
            line_count       INTEGER NOT NULL,
            xp_earned        INTEGER NOT NULL,
            body             BLOB NOT NULL,
            PRIMARY KEY (user_id, session_id)
        );
        CREATE INDEX history_by_user_time ON history (user_id, timestamp DESC, session_id DESC);

        CREATE TABLE history_counts (
            user_id TEXT PRIMARY KEY,
            total   INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TRIGGER history_counts_insert AFTER INSERT ON history BEGIN
            INSERT INTO history_counts (user_id, total) VALUES (NEW.user_id, 1)
                ON CONFLICT (user_id) DO UPDATE SET total = total + 1;
        END;
        CREATE TRIGGER history_counts_delete AFTER DELETE ON history BEGIN
            UPDATE history_counts SET total = total - 1 WHERE user_id = OLD.user_id;
        END;

        CREATE TABLE progress (
            user_id              TEXT NOT NULL REFERENCES users(id),
            language             TEXT NOT NULL,
            total_xp             INTEGER NOT NULL DEFAULT 0,
            weekly_xp            INTEGER NOT NULL DEFAULT 0,
            week_start           INTEGER,
            level                INTEGER NOT NULL DEFAULT 1,
            current_streak       INTEGER NOT NULL DEFAULT 0,
            longest_streak       INTEGER NOT NULL DEFAULT 0,
            last_activity_date   TEXT,
            total_sessions       INTEGER NOT NULL DEFAULT 0,
            solo_sessions        INTEGER NOT NULL DEFAULT 0,
            multiplayer_sessions INTEGER NOT NULL DEFAULT 0,
            total_minutes_played INTEGER NOT NULL DEFAULT 0,
            successful_repairs   INTEGER NOT NULL DEFAULT 0,
            help_given           INTEGER NOT NULL DEFAULT 0,
            team_wins            INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (user_id, language)
        );

        CREATE TABLE known_words (
            user_id  TEXT NOT NULL,
            language TEXT NOT NULL,
            word     TEXT NOT NULL,
            PRIMARY KEY (user_id, language, word)
        ) WITHOUT ROWID;

        CREATE TABLE session_days (
            user_id TEXT NOT NULL,
            day     INTEGER NOT NULL,
            PRIMARY KEY (user_id, day)
        ) WITHOUT ROWID;

        \(SQLiteJournalSchema.entriesTable);

        CREATE TABLE sealed_sessions (
            session_id TEXT PRIMARY KEY,
            body       BLOB NOT NULL,
            attempts   INTEGER NOT NULL DEFAULT 0,
            last_error TEXT
        );
        """)

    /// Version 2: the header of each open session, so a crash's open sessions can be rebuilt
    /// (`SessionHeader` as JSON). A journal row without a header is an orphan, pruned at start.
    public static let v2 = SQLiteMigration(version: 2, name: "journal session headers",
                                           sql: SQLiteJournalSchema.headersTable + ";")

    /// Version 3: which sessions each user's progress already counts, so writing a session
    /// again (a retry after an unclear failure, a rebuilt session) never counts it twice.
    public static let v3 = SQLiteMigration(version: 3, name: "progress ledger", sql: """
        CREATE TABLE progress_sessions (
            user_id    TEXT NOT NULL,
            session_id TEXT NOT NULL,
            PRIMARY KEY (user_id, session_id)
        ) WITHOUT ROWID;
        INSERT OR IGNORE INTO progress_sessions (user_id, session_id) SELECT user_id, session_id FROM history;
        """)

    /// Version 4: the seed's `UserProgress` — seconds played on the last session day (for
    /// `todayMinutes`) and every learner's SM-2 state per word and language (for the vocabulary
    /// figures). Words met before this version (`known_words`) have no SM-2 state.
    public static let v4 = SQLiteMigration(version: 4, name: "today minutes and word reviews", sql: """
        ALTER TABLE progress ADD COLUMN today_day INTEGER;
        ALTER TABLE progress ADD COLUMN today_seconds INTEGER NOT NULL DEFAULT 0;

        CREATE TABLE word_reviews (
            user_id          TEXT NOT NULL,
            language         TEXT NOT NULL,
            word             TEXT NOT NULL,
            ease_factor      REAL NOT NULL,
            interval_days    INTEGER NOT NULL,
            repetitions      INTEGER NOT NULL,
            next_review_at   INTEGER NOT NULL,
            last_reviewed_at INTEGER NOT NULL,
            PRIMARY KEY (user_id, language, word)
        ) WITHOUT ROWID;
        """)

    /// Version 5: the end of each learner's latest session per language, as of which stored due
    /// words are counted (a session that changes no word's SM-2 state leaves no other trace of
    /// its time). NULL until the learner's next session; until then the words' latest review
    /// stands in.
    public static let v5 = SQLiteMigration(version: 5, name: "last session time", sql: """
        ALTER TABLE progress ADD COLUMN last_session_at INTEGER;
        """)

    /// Version 6: the sessions whose history write (or seal) committed, so that the journal,
    /// which lives in a file of its own (``SQLiteJournalSchema``), can drop their rows after the
    /// fact and never rebuild an ended session. `id` orders the markers for pruning.
    public static let v6 = SQLiteMigration(version: 6, name: "ended session markers", sql: """
        CREATE TABLE ended_sessions (
            id         INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL UNIQUE
        );
        """)

    /// Version 7: the journal's tables in this file (empty unless a journal shares the file)
    /// in commit order, as in the journal's own file (``SQLiteJournalSchema/v3``), so that
    /// ``SQLiteJournal`` reads and writes one layout.
    public static let v7 = SQLiteMigration(version: 7, name: "journal in commit order",
                                           sql: SQLiteJournalSchema.commitOrderSQL)

    /// Version 8: the journal's headers in this file indexed by `first_pos`, as in the journal's
    /// own file (``SQLiteJournalSchema/v4``).
    public static let v8 = SQLiteMigration(version: 8, name: "journal headers by first position",
                                           sql: SQLiteJournalSchema.firstPosIndexSQL)

    /// Version 9: known words as one row per learner, language and session that taught them
    /// (`words`: a JSON array of the words, sorted; `source`: the session's id, so a retried
    /// write adds nothing), as PostgreSQL's schema version 6 keeps them. An ended session writes
    /// a row per participant with new words instead of a row per word (a fresh learner's first
    /// session: about 80). The rows of `known_words` stay and are read with the sets.
    public static let v9 = SQLiteMigration(version: 9, name: "known words as sets", sql: """
        CREATE TABLE known_word_sets (
            user_id  TEXT NOT NULL,
            language TEXT NOT NULL,
            source   TEXT NOT NULL,
            words    TEXT NOT NULL,
            PRIMARY KEY (user_id, language, source)
        ) WITHOUT ROWID;
        """)

    /// Version 10: SM-2 word states as sets (``WordReviewSet``): one row per learner, language
    /// and ended session, holding the states that session changed, instead of a row per word
    /// (a fresh learner's first session: about 80 upserts). A learner's states are their
    /// `word_reviews` rows, then their sets in `id` order, a later state of a word replacing an
    /// earlier one; once a learner has ``WordReviewSet/mostSets`` sets in a language, the next
    /// write merges everything into one set and deletes the rest, `word_reviews` rows included.
    /// A rowid table: a set of a few hundred words is kilobytes, too large a row for a table
    /// clustered on its key, and a new row's `id` is above every existing one, which gives the
    /// write order.
    public static let v10 = SQLiteMigration(version: 10, name: "word reviews as sets", sql: """
        CREATE TABLE word_review_sets (
            id       INTEGER PRIMARY KEY,
            user_id  TEXT NOT NULL,
            language TEXT NOT NULL,
            states   BLOB NOT NULL
        );
        CREATE INDEX word_review_sets_by_learner ON word_review_sets (user_id, language);
        """)
}
