import Foundation
import HubDomain
@testable import HubStorage
import Testing

@Suite("SQLite migrations")
struct SQLiteMigrationTests {
    @Test("Migrations run once; reopening applies nothing and the data survives")
    func idempotentReopen() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        // Parent directories are created.
        let path = dir.path + "/nested/data/sessionhub.sqlite"
        do {
            let store = try SQLiteStore(path: path)
            try await store.makePremium("ana")
            _ = await store.save(Fixture.session("s1", endedAt: Day.mon16, users: [("ana", 42)]))
            await store.recordWords(["hola"], userId: "ana", language: "es")
            store.close()
        }
        let reopened = try SQLiteStore(path: path)
        let versions = try reopened.database.withConnection { db in
            (try SQLiteMigrator.appliedVersions(db), try SQLiteMigrator(migrations: SQLiteSchema.migrations).migrate(db))
        }
        #expect(versions.0 == SQLiteSchema.migrations.map(\.version))
        #expect(versions.1 == [])
        #expect(try await reopened.getSession(userId: "ana", sessionId: "s1")?.stats?.xpEarned == 42)
        #expect(try await reopened.getSessions(userId: "ana", limit: 5, before: nil).total == 1)
        #expect(try await reopened.progress(userId: "ana").first?.totalXP == 42)
        #expect(await reopened.knownWords(userId: "ana", language: "es") == ["hola", "café"], "the saved session's new word and the one recorded")
        #expect(try await reopened.profile(userId: "ana")?.isPremium == true)
    }

    @Test("A later migration applies once on top of an existing database")
    func laterMigration() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let first = try SQLiteDatabase(path: dir.file())
        first.close()
        let shipped = SQLiteSchema.migrations.map(\.version)
        let v2 = SQLiteMigration(version: shipped.count + 1, name: "test column", sql: "ALTER TABLE users ADD COLUMN test_note TEXT")
        let second = try SQLiteDatabase(path: dir.file(), migrations: SQLiteSchema.migrations + [v2])
        let versions = try second.withConnection { try SQLiteMigrator.appliedVersions($0) }
        #expect(versions == shipped + [shipped.count + 1])
        second.close()
        let third = try SQLiteDatabase(path: dir.file(), migrations: SQLiteSchema.migrations + [v2])
        #expect(try third.withConnection { try SQLiteMigrator.appliedVersions($0) } == shipped + [shipped.count + 1])
        third.close()
        // An older build refuses a file from a newer schema.
        #expect(throws: StorageError.self) { try SQLiteDatabase(path: dir.file()) }
    }

    @Test("v4 on a v3 file: stored progress and free-text profiles read as the seed models, and vocabulary starts")
    func v3FileMigratesToSeedModels() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let old = try SQLiteDatabase(path: dir.file(), migrations: [SQLiteSchema.v1, SQLiteSchema.v2, SQLiteSchema.v3])
        try old.withConnection { db in
            try db.execute("""
                INSERT INTO users (id, display_name, native_language, target_languages, current_target_language, interests,
                                   learning_goals, daily_goal_minutes, voice_speed, show_translations, is_premium,
                                   onboarding_completed, created_at, last_active_at)
                VALUES ('ana', 'Ana', 'en', '[]', NULL, '["travel","cooking"]', '["order in a café"]', 20, 'NORMAL',
                        'ALWAYS', 0, 1, 1, 2);
                INSERT INTO progress (user_id, language, total_xp, weekly_xp, week_start, level, current_streak, longest_streak,
                                      last_activity_date, total_sessions, solo_sessions, multiplayer_sessions,
                                      total_minutes_played, successful_repairs, help_given, team_wins)
                VALUES ('ana', 'es', 420, 0, NULL, 3, 0, 4, '2026-11-01', 9, 9, 0, 45, 0, 0, 0);
                """)
        }
        old.close()
        let store = try SQLiteStore(path: dir.file())
        defer { store.close() }
        let profile = try #require(try await store.profile(userId: "ana"))
        #expect(profile.interests == [.travel])
        #expect(profile.learningGoals.isEmpty)
        #expect(profile.currentTargetLanguage == "en")
        let progress = try #require(try await store.progress(userId: "ana", now: Day.mon16).first)
        #expect(progress.currentLevel == 3)
        #expect(progress.totalMinutesPlayed == 45)
        #expect(progress.todayMinutes == 0)
        #expect(progress.dailyGoalMinutes == 20)
        #expect(progress.totalWordsLearned == 0 && progress.wordsDueForReview == 0)
        #expect(progress.estimatedCEFR == .a1 && progress.cefrProgressPercent == 0)
        _ = await store.save(Fixture.session("s1", endedAt: Day.mon16, users: [("ana", 10)]))
        let after = try #require(try await store.progress(userId: "ana", now: Day.mon16).first)
        #expect(after.totalXP == 430)
        #expect(after.todayMinutes == 5)
        #expect(after.totalWordsLearned > 0)
    }

    @Test("v5 on a v4 file: stored due words are counted as of the latest review until the next session records its time")
    func v4FileCountsDueWordsAsOfTheLatestReview() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let old = try SQLiteDatabase(path: dir.file(), migrations: [SQLiteSchema.v1, SQLiteSchema.v2, SQLiteSchema.v3, SQLiteSchema.v4])
        try old.withConnection { db in
            // Two words reviewed at day 0 (one due at day 1, one at day 3), one at day 2.
            let day = Day.ms
            try db.execute("""
                INSERT INTO users (id, display_name, native_language, target_languages, current_target_language, interests,
                                   learning_goals, daily_goal_minutes, voice_speed, show_translations, is_premium,
                                   onboarding_completed, created_at, last_active_at)
                VALUES ('ana', 'Ana', 'en', '[]', NULL, '[]', '[]', 10, 'NORMAL', 'ALWAYS', 0, 1, 1, 2);
                INSERT INTO progress (user_id, language, total_xp, weekly_xp, week_start, level, current_streak, longest_streak,
                                      last_activity_date, total_sessions, solo_sessions, multiplayer_sessions,
                                      total_minutes_played, successful_repairs, help_given, team_wins)
                VALUES ('ana', 'fr', 10, 10, NULL, 1, 1, 1, '2026-11-16', 2, 2, 0, 4, 0, 0, 0);
                INSERT INTO word_reviews (user_id, language, word, ease_factor, interval_days, repetitions,
                                          next_review_at, last_reviewed_at)
                VALUES ('ana', 'fr', 'mot1', 2.5, 1, 1, \(Day.mon16 + day), \(Day.mon16)),
                       ('ana', 'fr', 'mot2', 2.5, 3, 1, \(Day.mon16 + 3 * day), \(Day.mon16)),
                       ('ana', 'fr', 'mot3', 2.5, 1, 1, \(Day.mon16 + 3 * day), \(Day.mon16 + 2 * day));
                """)
        }
        old.close()
        let store = try SQLiteStore(path: dir.file())
        defer { store.close() }
        let stored = try #require(try await store.progress(userId: "ana").first)
        #expect(stored.wordsDueForReview == 1, "as of day 2, the latest review: only mot1 is due")
        // A session at day 4 in French (none of these words) records its time.
        let dayFour = Day.mon16 + 4 * Day.ms
        let results = await store.save(Fixture.session("s1", endedAt: dayFour, users: [("ana", 10)], targetLanguage: "fr"))
        #expect(results["ana"] == .error(.featureLocked), "written, not premium: \(results)")
        let after = try #require(try await store.progress(userId: "ana").first)
        #expect(after.totalSessions == 3)
        let states = try await store.wordReviews(userId: "ana", language: "fr")
        #expect(states.count > 3)
        #expect(after.wordsDueForReview == states.values.filter { $0.nextReviewAt <= dayFour }.count)
        #expect(after.wordsDueForReview >= 3, "as of day 4: the three stored words are due")
    }

    @Test("A failing migration leaves the previous version and nothing of itself")
    func failingMigrationRollsBack() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let shipped = SQLiteSchema.migrations.map(\.version)
        let broken = SQLiteMigration(version: shipped.count + 1, name: "broken",
                                     sql: "CREATE TABLE half (x INTEGER); INSERT INTO no_such_table VALUES (1);")
        #expect(throws: StorageError.self) {
            try SQLiteDatabase(path: dir.file(), migrations: SQLiteSchema.migrations + [broken])
        }
        let database = try SQLiteDatabase(path: dir.file())
        let (versions, tables) = try database.withConnection { db in
            (try SQLiteMigrator.appliedVersions(db),
             try db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'half'") { $0.string(0) })
        }
        #expect(versions == shipped)
        #expect(tables.isEmpty)
    }

    @Test("The database runs in WAL mode with foreign keys on")
    func pragmas() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let database = try SQLiteDatabase(path: dir.file())
        let (mode, keys, sync, timeout) = try database.withConnection { db in
            (try db.queryFirst("PRAGMA journal_mode") { $0.string(0) },
             try db.queryFirst("PRAGMA foreign_keys") { $0.int(0) },
             try db.queryFirst("PRAGMA synchronous") { $0.int(0) },
             try db.queryFirst("PRAGMA busy_timeout") { $0.int(0) })
        }
        #expect(mode == "wal")
        #expect(keys == 1)
        #expect(sync == 1) // NORMAL
        #expect(timeout == 5000)
        // Memory statistics were turned off before SQLite initialized (SQLITE_OK, not MISUSE).
        #expect(SQLiteConnection.processSettings == 0)
    }
}
