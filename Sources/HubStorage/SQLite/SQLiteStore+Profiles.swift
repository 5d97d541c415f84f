import Foundation
import HubDomain

extension SQLiteStore: ProfileRepository {
    public func profile(userId: String) async throws -> UserProfile? {
        try database.withConnection { try Self.loadProfile($0, userId: userId) }
    }

    public func saveProfile(_ profile: UserProfile) async throws -> UserProfile {
        try database.transaction { db in
            var stored = profile
            if let existing = try Self.loadProfile(db, userId: profile.id) {
                stored.isPremium = existing.isPremium
                stored.createdAt = existing.createdAt
            } else {
                stored.isPremium = false
            }
            try Self.writeProfile(db, stored)
            return stored
        }
    }

    public func setPremium(userId: String, isPremium: Bool, actor: String, at: Int64) async throws -> UserProfile {
        try database.transaction { db in
            var stored = try Self.loadProfile(db, userId: userId)
                ?? UserProfile.initial(id: userId, displayName: userId, now: at)
            stored.isPremium = isPremium
            try Self.writeProfile(db, stored)
            try db.run("INSERT INTO premium_changes (user_id, is_premium, actor, changed_at) VALUES (?, ?, ?, ?)",
                       [.text(userId), .bool(isPremium), .text(actor), .integer(at)])
            return stored
        }
    }

    public func premiumChanges(userId: String) async throws -> [PremiumChange] {
        try database.withConnection { db in
            try db.query("""
                SELECT user_id, is_premium, actor, changed_at FROM premium_changes
                WHERE user_id = ? ORDER BY changed_at, id
                """, [.text(userId)]) { row in
                PremiumChange(userId: row.string(0), isPremium: row.bool(1), actor: row.string(2),
                              changedAt: row.int64(3))
            }
        }
    }

    // MARK: Rows

    static func loadProfile(_ db: SQLiteConnection, userId: String) throws -> UserProfile? {
        try db.queryFirst("""
            SELECT id, display_name, native_language, target_languages, current_target_language, interests,
                   learning_goals, daily_goal_minutes, voice_speed, show_translations, is_premium,
                   onboarding_completed, created_at, last_active_at
            FROM users WHERE id = ?
            """, [.text(userId)]) { row in
            guard let voiceSpeed = VoiceSpeed(rawValue: row.string(8)),
                  let showTranslations = ShowTranslations(rawValue: row.string(9)) else {
                throw StorageError("users: bad voice_speed or show_translations for a stored profile")
            }
            return UserProfile.stored(
                id: row.string(0), displayName: row.string(1), nativeLanguage: row.string(2),
                targetLanguages: try decode([TargetLanguage].self, from: Data(row.string(3).utf8)),
                currentTargetLanguage: row.optionalString(4),
                interests: try decode([String].self, from: Data(row.string(5).utf8)),
                learningGoals: try decode([String].self, from: Data(row.string(6).utf8)),
                dailyGoalMinutes: row.int(7), voiceSpeed: voiceSpeed, showTranslations: showTranslations,
                isPremium: row.bool(10), onboardingCompleted: row.bool(11), createdAt: row.int64(12),
                lastActiveAt: row.int64(13))
        }
    }

    static func writeProfile(_ db: SQLiteConnection, _ profile: UserProfile) throws {
        func json<T: Encodable>(_ value: T) throws -> SQLiteValue {
            .text(String(decoding: try encode(value), as: UTF8.self))
        }
        try db.run("""
            INSERT INTO users (id, display_name, native_language, target_languages, current_target_language,
                               interests, learning_goals, daily_goal_minutes, voice_speed, show_translations,
                               is_premium, onboarding_completed, created_at, last_active_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET
                display_name = excluded.display_name, native_language = excluded.native_language,
                target_languages = excluded.target_languages,
                current_target_language = excluded.current_target_language, interests = excluded.interests,
                learning_goals = excluded.learning_goals, daily_goal_minutes = excluded.daily_goal_minutes,
                voice_speed = excluded.voice_speed, show_translations = excluded.show_translations,
                is_premium = excluded.is_premium, onboarding_completed = excluded.onboarding_completed,
                created_at = excluded.created_at, last_active_at = excluded.last_active_at
            """, [
                .text(profile.id), .text(profile.displayName), .text(profile.nativeLanguage),
                try json(profile.targetLanguages), .text(profile.currentTargetLanguage),
                try json(profile.interests), try json(profile.learningGoals), .int(profile.dailyGoalMinutes),
                .text(profile.voiceSpeed.rawValue), .text(profile.showTranslations.rawValue),
                .bool(profile.isPremium), .bool(profile.onboardingCompleted), .integer(profile.createdAt),
                .integer(profile.lastActiveAt),
            ])
    }
}
