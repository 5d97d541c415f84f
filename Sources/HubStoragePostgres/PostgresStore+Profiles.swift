import HubDomain
import Foundation
import HubStorage
import PostgresNIO

extension PostgresStore: ProfileRepository {
    public func profile(userId: String) async throws -> UserProfile? {
        try await pool.client.withConnection { try await Self.loadProfile($0, userId: userId, logger: logger) }
    }

    public func saveProfile(_ profile: UserProfile) async throws -> UserProfile {
        try await pool.transaction { db in
            var stored = profile
            if let existing = try await Self.loadProfile(db, userId: profile.id, logger: logger, lock: true) {
                stored.isPremium = existing.isPremium
                stored.createdAt = existing.createdAt
            } else {
                stored.isPremium = false
            }
            try await Self.writeProfile(db, stored, logger: logger)
            return stored
        }
    }

    public func setPremium(userId: String, isPremium: Bool, actor: String, at: Int64) async throws -> UserProfile {
        try await pool.transaction { db in
            var stored = try await Self.loadProfile(db, userId: userId, logger: logger, lock: true)
                ?? UserProfile.initial(id: userId, displayName: userId, now: at)
            stored.isPremium = isPremium
            try await Self.writeProfile(db, stored, logger: logger)
            try await db.query("""
                INSERT INTO premium_changes (user_id, is_premium, actor, changed_at) VALUES (\(userId), \(isPremium), \(actor), \(at))
                """, logger: logger)
            return stored
        }
    }

    public func premiumChanges(userId: String) async throws -> [PremiumChange] {
        let rows = try await pool.client.query("""
            SELECT user_id, is_premium, actor, changed_at FROM premium_changes WHERE user_id = \(userId) ORDER BY changed_at, id
            """, logger: logger)
        var changes: [PremiumChange] = []
        for try await (user, premium, actor, at) in rows.decode((String, Bool, String, Int64).self) {
            changes.append(PremiumChange(userId: user, isPremium: premium, actor: actor, changedAt: at))
        }
        return changes
    }

    // MARK: Rows

    static func loadProfile(_ db: PostgresConnection, userId: String, logger: Logger, lock: Bool = false) async throws -> UserProfile? {
        try await loadProfiles(db, userIds: [userId], logger: logger, lock: lock)[userId]
    }

    /// The stored profiles of `userIds` (a missing one is absent), read in one query; with
    /// `lock`, their rows are locked in the byte order of their ids (every writer locks in that
    /// order).
    static func loadProfiles(_ db: PostgresConnection, userIds: [String], logger: Logger,
                             lock: Bool = false) async throws -> [String: UserProfile] {
        let forUpdate = lock ? #" ORDER BY id COLLATE "C" FOR UPDATE"# : ""
        let rows = try await db.query("""
            SELECT id, display_name, native_language, target_languages, current_target_language, interests,
                   learning_goals, daily_goal_minutes, voice_speed, show_translations, is_premium,
                   onboarding_completed, created_at, last_active_at
            FROM users WHERE id = ANY(\(userIds)::text[])\(unescaped: forUpdate)
            """, logger: logger)
        var profiles: [String: UserProfile] = [:]
        for try await (id, name, native, targets, current, interests, goals, minutes, speed, translations, premium,
                       onboarded, created, active)
            in rows.decode((String, String, String, String, String?, String, String, Int, String, String, Bool, Bool,
                            Int64, Int64).self) {
            guard let voiceSpeed = VoiceSpeed(rawValue: speed), let showTranslations = ShowTranslations(rawValue: translations) else {
                throw StorageError("users: bad voice_speed or show_translations for a stored profile")
            }
            profiles[id] = UserProfile.stored(
                id: id, displayName: name, nativeLanguage: native,
                targetLanguages: try decode([TargetLanguage].self, json: targets), currentTargetLanguage: current,
                interests: try decode([String].self, json: interests), learningGoals: try decode([String].self, json: goals),
                dailyGoalMinutes: minutes, voiceSpeed: voiceSpeed, showTranslations: showTranslations,
                isPremium: premium, onboardingCompleted: onboarded, createdAt: created, lastActiveAt: active)
        }
        return profiles
    }

    /// Inserts `profiles` in one statement, skipping every id that has a profile already, in
    /// the given order.
    static func insertProfiles(_ db: PostgresConnection, _ profiles: [UserProfile], logger: Logger) async throws {
        guard !profiles.isEmpty else { return }
        let targets = try profiles.map { try json($0.targetLanguages) }, interests = try profiles.map { try json($0.interests) }
        let goals = try profiles.map { try json($0.learningGoals) }
        try await db.query("""
            INSERT INTO users (id, display_name, native_language, target_languages, current_target_language,
                               interests, learning_goals, daily_goal_minutes, voice_speed, show_translations,
                               is_premium, onboarding_completed, created_at, last_active_at)
            SELECT * FROM unnest(\(profiles.map(\.id))::text[], \(profiles.map(\.displayName))::text[],
                                 \(profiles.map(\.nativeLanguage))::text[], \(targets)::text[],
                                 \(profiles.map(\.currentTargetLanguage))::text[], \(interests)::text[], \(goals)::text[],
                                 \(profiles.map { Int64($0.dailyGoalMinutes) })::bigint[]::integer[],
                                 \(profiles.map(\.voiceSpeed.rawValue))::text[], \(profiles.map(\.showTranslations.rawValue))::text[],
                                 \(profiles.map(\.isPremium))::boolean[], \(profiles.map(\.onboardingCompleted))::boolean[],
                                 \(profiles.map(\.createdAt))::bigint[], \(profiles.map(\.lastActiveAt))::bigint[])
            ON CONFLICT (id) DO NOTHING
            """, logger: logger)
    }

    static func writeProfile(_ db: PostgresConnection, _ profile: UserProfile, logger: Logger) async throws {
        let targets = try json(profile.targetLanguages), interests = try json(profile.interests)
        let goals = try json(profile.learningGoals)
        try await db.query("""
            INSERT INTO users (id, display_name, native_language, target_languages, current_target_language,
                               interests, learning_goals, daily_goal_minutes, voice_speed, show_translations,
                               is_premium, onboarding_completed, created_at, last_active_at)
            VALUES (\(profile.id), \(profile.displayName), \(profile.nativeLanguage), \(targets),
                    \(profile.currentTargetLanguage), \(interests), \(goals), \(profile.dailyGoalMinutes),
                    \(profile.voiceSpeed.rawValue), \(profile.showTranslations.rawValue), \(profile.isPremium),
                    \(profile.onboardingCompleted), \(profile.createdAt), \(profile.lastActiveAt))
            ON CONFLICT (id) DO UPDATE SET
                display_name = excluded.display_name, native_language = excluded.native_language,
                target_languages = excluded.target_languages,
                current_target_language = excluded.current_target_language, interests = excluded.interests,
                learning_goals = excluded.learning_goals, daily_goal_minutes = excluded.daily_goal_minutes,
                voice_speed = excluded.voice_speed, show_translations = excluded.show_translations,
                is_premium = excluded.is_premium, onboarding_completed = excluded.onboarding_completed,
                created_at = excluded.created_at, last_active_at = excluded.last_active_at
            """, logger: logger)
    }
}
