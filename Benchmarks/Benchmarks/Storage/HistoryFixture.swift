// The 1,000,000-session history database, built once and kept between runs.
import Foundation
import HubDomain
import HubStorage

/// A history of 1,000,000 ended sessions over one year, spread over 10,000 users; the target
/// user has exactly 1,000 of them (every 1,000th session), the other 9,999 users about 100 each.
/// Rows go in in end-time order, as a running hub writes them, so each user's rows are scattered
/// over the whole table.
///
/// Rows are inserted directly with SQL (the `history` columns of `SQLiteSchema.v1`, whose
/// `history_counts` trigger keeps the totals, and a `progress_sessions` ledger row per session,
/// schema v3) in transactions of 50,000 rows, after the 10,000 `users` rows. Each row's `body`
/// is the real JSON `HistorySession` of a short (4-line) session, 1.3 KB: the listing never reads
/// `body`, and a longer body only moves bytes into overflow pages the listing does not touch.
///
/// The file is `<cache>/history-1m-v2.sqlite` (cache: `$STORAGE_BENCH_CACHE_DIR`, default
/// `$TMPDIR/sessionhub-storage-bench-cache`). It is reused while its counts are right; set
/// `STORAGE_BENCH_REBUILD=1` to build it again.
enum HistoryFixture {
    static let sessionCount = 1_000_000
    static let userCount = 10_000
    static let targetSessions = 1_000
    static let targetUser = userId(4_242)
    static let rowsPerTransaction = 50_000
    /// Sessions end over the year before Monday 2026-11-23, one every 31.536 s.
    static let firstEnd = Clock.mon23 - 365 * Clock.dayMs
    static let spacingMs: Int64 = 31_536

    static func userId(_ index: Int) -> String { "user-" + String(format: "%06d", index) }

    /// End time of session `index` (0-based, in insertion order).
    static func timestamp(_ index: Int) -> Int64 { firstEnd + Int64(index) * spacingMs }

    /// Whether session `index` belongs to the target user.
    static func isTarget(_ index: Int) -> Bool { index % (sessionCount / targetSessions) == 500 }

    /// The target user's newest session and the one in the middle of their history (their 500th
    /// newest), as a `before` cursor for a deep page.
    static let newestTargetTimestamp = timestamp(sessionCount - 500)
    static let middleTargetTimestamp = timestamp(sessionCount / 2 + 500)

    struct Prepared: Sendable {
        var path: String
        /// Seconds the build took (when this process or an earlier one built the file).
        var buildSeconds: Double?
        var builtNow: Bool
        var fileBytes: Int64
    }

    static var path: String { BenchDirectory.cache + "/history-1m-v2.sqlite" }

    /// Built (or checked) once per process, on first use.
    static let prepared: Prepared = {
        do {
            return try prepare()
        } catch {
            fatalError("history fixture: \(error)")
        }
    }()

    private static func prepare() throws -> Prepared {
        let path = Self.path
        let rebuild = ProcessInfo.processInfo.environment["STORAGE_BENCH_REBUILD"] == "1"
        if !rebuild, FileManager.default.fileExists(atPath: path), try isComplete(path) {
            let seconds = (try? String(contentsOfFile: path + ".build-seconds", encoding: .utf8))
                .flatMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            return Prepared(path: path, buildSeconds: seconds, builtNow: false, fileBytes: fileSize(path))
        }
        StorageFixtureReport.note("building the 1,000,000-session history database at \(path) ...")
        let building = path + ".building"
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: building + suffix)
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
        let started = nowNanoseconds()
        try build(building)
        let seconds = Double(nowNanoseconds() - started) / 1e9
        try FileManager.default.moveItem(atPath: building, toPath: path)
        try? String(format: "%.1f\n", seconds).write(toFile: path + ".build-seconds", atomically: true, encoding: .utf8)
        guard try isComplete(path) else { throw StorageError("the built database has the wrong counts") }
        let size = fileSize(path)
        StorageFixtureReport.note(String(format: "built in %.1f s, %.2f GB", seconds, Double(size) / 1e9))
        return Prepared(path: path, buildSeconds: seconds, builtNow: true, fileBytes: size)
    }

    private static func fileSize(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// The counts the benchmarks rely on.
    private static func isComplete(_ path: String) throws -> Bool {
        let database = try SQLiteDatabase(path: path)
        defer { database.close() }
        return try database.withConnection { db in
            let target = try db.queryFirst("SELECT total FROM history_counts WHERE user_id = ?", [.text(targetUser)]) {
                $0.int(0)
            }
            let all = try db.queryFirst("SELECT SUM(total) FROM history_counts WHERE user_id LIKE 'user-%'") { $0.int(0) }
            return target == targetSessions && all == sessionCount
        }
    }

    private static func build(_ path: String) throws {
        let database = try SQLiteDatabase(path: path)
        defer { database.close() }
        try database.withConnection { db in
            // Build-time only: no fsync, a 256 MiB page cache so the two history indexes stay in memory.
            try db.execute("PRAGMA synchronous=OFF; PRAGMA cache_size=-262144;")
        }
        let encoder = JSONEncoder()
        let scenarios = [("Ordering Coffee", "ordering-coffee"), ("Checking into a Hotel", "hotel-check-in"),
                         ("Asking for Directions", "directions"), ("At the Doctor", "doctor"),
                         ("Buying a Train Ticket", "train-ticket"), ("Job Interview", "job-interview"),
                         ("Renting an Apartment", "apartment"), ("At the Market", "market")]
        let languages = ["es", "fr", "de", "it", "ja", "pt"]
        let short = SessionFixture.ended(sessionId: "0123456789abcdef0123456789abcdef", userIds: [targetUser],
                                         lineCount: 4, recastCount: 1, endedAt: Clock.mon23)
        let participant = short.participants[0]
        let body = try encoder.encode(HistorySession(
            sessionId: short.sessionId, scenarioTitle: short.scenarioTitle, timestamp: short.endedAt,
            targetLanguage: short.targetLanguage, durationSeconds: short.durationSeconds, dialogLines: short.lines,
            scenarioId: short.scenarioId, recasts: short.recasts, stats: participant.figures.stats,
            collaboration: participant.figures.collaboration))

        // Users first (history.user_id references users.id), all premium.
        try database.transaction { db in
            for index in 0..<userCount {
                try db.run("""
                    INSERT INTO users (id, display_name, native_language, target_languages, current_target_language,
                                       interests, learning_goals, daily_goal_minutes, voice_speed, show_translations,
                                       is_premium, onboarding_completed, created_at, last_active_at)
                    VALUES (?, ?, 'en', '[]', NULL, '[]', '[]', 10, ?, ?, 1, 1, ?, ?)
                    """, [.text(userId(index)), .text("Player \(index)"), .text(VoiceSpeed.normal.rawValue),
                          .text(ShowTranslations.always.rawValue), .integer(firstEnd), .integer(Clock.mon23)])
            }
        }

        var generator = SeededGenerator(seed: 1_000_000)
        let targetIndex = 4_242
        var index = 0
        while index < sessionCount {
            let end = min(sessionCount, index + rowsPerTransaction)
            try database.transaction { db in
                for row in index..<end {
                    let user: String
                    if isTarget(row) {
                        user = targetUser
                    } else {
                        var other = Int.random(in: 0..<(userCount - 1), using: &generator)
                        if other >= targetIndex { other += 1 }
                        user = userId(other)
                    }
                    let scenario = scenarios[Int.random(in: 0..<scenarios.count, using: &generator)]
                    let lines = Int.random(in: 4...60, using: &generator)
                    let sessionId = generator.sessionId()
                    try db.run("""
                        INSERT INTO history (user_id, session_id, timestamp, scenario_title, target_language,
                                             duration_seconds, line_count, xp_earned, body)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """, [.text(user), .text(sessionId), .integer(timestamp(row)), .text(scenario.0),
                              .text(languages[Int.random(in: 0..<languages.count, using: &generator)]),
                              .int(Int.random(in: 120...1_800, using: &generator)), .int(lines),
                              .int(10 * lines + Int.random(in: 0...100, using: &generator)), .blob(body)])
                    // The progress ledger (schema v3) has a row for every session a user's progress counts.
                    try db.run("INSERT INTO progress_sessions (user_id, session_id) VALUES (?, ?)",
                               [.text(user), .text(sessionId)])
                }
            }
            index = end
            if index % 200_000 == 0 { StorageFixtureReport.note("  \(index) sessions") }
        }
        try database.withConnection { db in
            _ = try db.query("PRAGMA wal_checkpoint(TRUNCATE)") { $0.int(0) }
        }
    }
}
