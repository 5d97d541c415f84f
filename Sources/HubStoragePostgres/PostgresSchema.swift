import HubDomain
import Foundation

/// The hub's PostgreSQL schema, as versioned migrations (docs/STORAGE.md, "PostgreSQL"). Add a
/// new version for every change; never edit an applied one.
enum PostgresSchema {
    /// One step: its version, a name, and the SQL run in one transaction.
    struct Migration: Sendable {
        var version: Int
        var name: String
        var sql: String

        /// The statements of ``sql`` (each ends with `;` at the end of a line).
        var statements: [String] {
            sql.components(separatedBy: ";\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                .map { $0.hasSuffix(";") ? String($0.dropLast()) : $0 }.filter { !$0.isEmpty }
        }
    }

    static let migrations: [Migration] = [v1, v2, v3, v4, v5, v6, v7]

    /// The partial index of open sessions by owner (version 1), for what reads a node's open
    /// sessions: its restart and a survivor's claims.
    ///
    /// A statement that finds a session by its id never offers the planner `open` or
    /// `owner_node` as a way to find it: it reads the row by its primary key in a materialized
    /// CTE (or a subquery on the key alone) and checks those columns on the row found. Otherwise
    /// a generic plan — prepared statements on the journal's connections are always planned
    /// generically — made while statistics counted few open sessions costs this index at one
    /// row and scans it: every open session of the node, on every journal commit, join and
    /// close (2.5 ms a commit with 2,000 open sessions, measured).
    static let openSessionsByOwnerIndex = "sessions_open_by_owner"

    /// Version 1: profiles, premium audit, history, progress, learner records; the cluster's
    /// nodes, sessions (owner node and epoch, for fencing), journal and seats.
    static let v1 = Migration(version: 1, name: "initial schema", sql: """
        CREATE TABLE users (
            id                      text PRIMARY KEY,
            display_name            text NOT NULL,
            native_language         text NOT NULL,
            target_languages        text NOT NULL DEFAULT '[]',
            current_target_language text,
            interests               text NOT NULL DEFAULT '[]',
            learning_goals          text NOT NULL DEFAULT '[]',
            daily_goal_minutes      integer NOT NULL,
            voice_speed             text NOT NULL,
            show_translations       text NOT NULL,
            is_premium              boolean NOT NULL DEFAULT false,
            onboarding_completed    boolean NOT NULL DEFAULT false,
            created_at              bigint NOT NULL,
            last_active_at          bigint NOT NULL
        );
        CREATE TABLE premium_changes (
            id         bigserial PRIMARY KEY,
            user_id    text NOT NULL REFERENCES users(id),
            is_premium boolean NOT NULL,
            actor      text NOT NULL,
            changed_at bigint NOT NULL
        );
        CREATE INDEX premium_changes_by_user ON premium_changes (user_id, changed_at);
        CREATE TABLE history (
            user_id          text NOT NULL REFERENCES users(id),
            session_id       text NOT NULL,
            timestamp        bigint NOT NULL,
            scenario_title   text NOT NULL,
            target_language  text NOT NULL,
            duration_seconds integer NOT NULL,
            line_count       integer NOT NULL,
            xp_earned        integer NOT NULL,
            body             text NOT NULL,
            PRIMARY KEY (user_id, session_id)
        );
        CREATE INDEX history_by_user_time ON history (user_id, timestamp DESC, session_id DESC);
        CREATE TABLE progress (
            user_id              text NOT NULL REFERENCES users(id),
            language             text NOT NULL,
            total_xp             integer NOT NULL DEFAULT 0,
            weekly_xp            integer NOT NULL DEFAULT 0,
            week_start           bigint,
            level                integer NOT NULL DEFAULT 1,
            current_streak       integer NOT NULL DEFAULT 0,
            longest_streak       integer NOT NULL DEFAULT 0,
            last_activity_date   text,
            total_sessions       integer NOT NULL DEFAULT 0,
            solo_sessions        integer NOT NULL DEFAULT 0,
            multiplayer_sessions integer NOT NULL DEFAULT 0,
            total_minutes_played integer NOT NULL DEFAULT 0,
            successful_repairs   integer NOT NULL DEFAULT 0,
            help_given           integer NOT NULL DEFAULT 0,
            team_wins            integer NOT NULL DEFAULT 0,
            PRIMARY KEY (user_id, language)
        );
        CREATE TABLE progress_sessions (
            user_id    text NOT NULL,
            session_id text NOT NULL,
            PRIMARY KEY (user_id, session_id)
        );
        CREATE TABLE known_words (
            user_id  text NOT NULL,
            language text NOT NULL,
            word     text NOT NULL,
            PRIMARY KEY (user_id, language, word)
        );
        CREATE TABLE session_days (
            user_id text NOT NULL,
            day     bigint NOT NULL,
            PRIMARY KEY (user_id, day)
        );

        CREATE TABLE nodes (
            node_id      text PRIMARY KEY,
            public_url   text NOT NULL,
            internal_url text NOT NULL,
            incarnation  text NOT NULL,
            started_at   timestamptz NOT NULL,
            heartbeat_at timestamptz NOT NULL,
            dead         boolean NOT NULL DEFAULT false
        );
        CREATE TABLE sessions (
            session_id text PRIMARY KEY,
            join_code  text,
            owner_node text,
            epoch      bigint NOT NULL,
            open       boolean NOT NULL DEFAULT true,
            started_at bigint NOT NULL,
            header     text NOT NULL
        );
        CREATE UNIQUE INDEX sessions_open_join_code ON sessions (join_code) WHERE open AND join_code IS NOT NULL;
        CREATE INDEX sessions_open_by_owner ON sessions (owner_node, started_at) WHERE open;
        CREATE TABLE journal (
            session_id text NOT NULL,
            seq        bigint NOT NULL,
            epoch      bigint NOT NULL,
            timestamp  bigint NOT NULL,
            kind       text NOT NULL,
            body       text NOT NULL,
            PRIMARY KEY (session_id, seq)
        );
        CREATE TABLE seats (
            user_id    text PRIMARY KEY,
            session_id text NOT NULL
        );
        CREATE INDEX seats_by_session ON seats (session_id);
        """)

    /// Version 2: the seed's `UserProgress` — seconds played on the last session day (for
    /// `todayMinutes`) and every learner's SM-2 state per word and language (SQLite's v4).
    static let v2 = Migration(version: 2, name: "today minutes and word reviews", sql: """
        ALTER TABLE progress ADD COLUMN today_day bigint;
        ALTER TABLE progress ADD COLUMN today_seconds bigint NOT NULL DEFAULT 0;
        CREATE TABLE word_reviews (
            user_id          text NOT NULL,
            language         text NOT NULL,
            word             text NOT NULL,
            ease_factor      double precision NOT NULL,
            interval_days    integer NOT NULL,
            repetitions      integer NOT NULL,
            next_review_at   bigint NOT NULL,
            last_reviewed_at bigint NOT NULL,
            PRIMARY KEY (user_id, language, word)
        );
        """)

    /// Version 3: room on every page of the rows each ended session rewrites (a learner's word
    /// reviews and progress), so an update, which changes no indexed column there, can stay on
    /// its page without a new index entry (a heap-only tuple). Applies to pages written from now
    /// on. (`sessions` is left alone: its updates change `open` or `owner_node`, both indexed.)
    static let v3 = Migration(version: 3, name: "room for in-page updates", sql: """
        ALTER TABLE word_reviews SET (fillfactor = 70);
        ALTER TABLE progress SET (fillfactor = 70);
        """)

    /// The number of changed rows of `sessions` after which autovacuum analyzes it again
    /// (version 4), whatever the table's size.
    static let sessionsAnalyzeThreshold = 500

    /// Version 4: `sessions` is analyzed after every ``sessionsAnalyzeThreshold`` changed rows,
    /// instead of PostgreSQL's default of 50 plus a tenth of the table. The table keeps every
    /// session ever played while only the open ones are read, so with the default a table of a
    /// million closed sessions would wait for 100,000 changes: statistics that still count a
    /// handful of open sessions when thousands are open make the planner cost
    /// ``openSessionsByOwnerIndex`` at one row and scan every open session where a lookup by
    /// join code needs one row (its own unique index). An analyze also invalidates the plans
    /// cached on every connection.
    static let v4 = Migration(version: 4, name: "sessions analyzed as they change", sql: """
        ALTER TABLE sessions SET (autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = \(sessionsAnalyzeThreshold));
        """)

    /// Version 5: the end of each learner's latest session per language, as of which stored due
    /// words are counted (a session that changes no word's SM-2 state leaves no other trace of
    /// its time). NULL until the learner's next session; until then the words' latest review
    /// stands in. Adding a nullable column rewrites nothing.
    static let v5 = Migration(version: 5, name: "last session time", sql: """
        ALTER TABLE progress ADD COLUMN last_session_at bigint;
        """)

    /// Version 6: known words as one row per session that taught them (`known_word_sets`: the
    /// words as an array, keyed by the session's id, so a retried write adds nothing), not a row
    /// per word. An ended session writes one row per participant with new words instead of one
    /// per word (316 rows for four fresh learners of the benchmark's sessions, a quarter of a
    /// run's write-ahead log), and a join reads a row per session the player learned from. The
    /// words of `known_words` stay where they are and are read with the sets: nodes of an older
    /// version, still running during a rolling upgrade, keep writing and reading that table.
    static let v6 = Migration(version: 6, name: "known words as sets", sql: """
        CREATE TABLE known_word_sets (
            user_id  text NOT NULL,
            language text NOT NULL,
            source   text NOT NULL,
            words    text[] NOT NULL,
            PRIMARY KEY (user_id, language, source)
        );
        """)

    /// Version 7: SM-2 word states as sets (``WordReviewSet``, as SQLite's schema version 10):
    /// one row per learner, language and ended session holding the states that session changed,
    /// instead of a row per word (four fresh learners of the benchmark's sessions: 316 upserted
    /// rows and their index entries). A learner's states are their sets and their `word_reviews`
    /// rows merged, the state reviewed last winning; once a learner has
    /// ``WordReviewSet/mostSets`` sets in a language, the next write merges everything into one
    /// set and deletes the rest, `word_reviews` rows included. Nodes of an older version, still
    /// running during a rolling upgrade, read and write only the rows: a word they review there
    /// is reviewed from its row (or as new), and that later state then wins over the sets'.
    /// Nothing is lost or unreadable; some words' schedules may restart, so finish such an
    /// upgrade before the next wave of sessions where it matters.
    static let v7 = Migration(version: 7, name: "word reviews as sets", sql: """
        CREATE TABLE word_review_sets (
            id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            user_id  text NOT NULL,
            language text NOT NULL,
            states   bytea NOT NULL
        );
        CREATE INDEX word_review_sets_by_learner ON word_review_sets (user_id, language, id);
        """)
}
