import Foundation
import HubDomain
@testable import HubStorage
import Testing

@Suite("Profile store (SQLite and PostgreSQL)")
struct ProfileStoreTests {
    @Test("A profile round-trips every field", arguments: StoreBackend.all)
    func roundTrip(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            #expect(try await store.profile(userId: "ana") == nil)
            let profile = UserProfile(id: "ana", displayName: "Ana Ñúñez", nativeLanguage: "pt",
                                      targetLanguages: [TargetLanguage(code: "es", proficiencyLevel: .b1, startedAt: 5),
                                                        TargetLanguage(code: "ja", proficiencyLevel: .a1, startedAt: 9)],
                                      currentTargetLanguage: "ja", interests: [.food, .travel], learningGoals: [.career],
                                      dailyGoalMinutes: 25, voiceSpeed: .slow, showTranslations: .onTap, isPremium: false,
                                      onboardingCompleted: true, createdAt: 1_000, lastActiveAt: 2_000)
            #expect(try await store.saveProfile(profile) == profile)
            #expect(try await store.profile(userId: "ana") == profile)
        }
    }

    @Test("saveProfile cannot make a user premium, nor change createdAt; the operator's flag is kept", arguments: StoreBackend.all)
    func saveProfileKeepsPremium(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            var profile = UserProfile.initial(id: "ana", displayName: "Ana", now: 1_000)
            profile.isPremium = true
            let stored = try await store.saveProfile(profile)
            #expect(stored.isPremium == false)
            #expect(try await store.profile(userId: "ana")?.isPremium == false)

            _ = try await store.setPremium(userId: "ana", isPremium: true, actor: "admin", at: 2_000)
            var update = UserProfile.initial(id: "ana", displayName: "Ana B.", now: 9_999)
            update.isPremium = false
            let after = try await store.saveProfile(update)
            #expect(after.isPremium == true)
            #expect(after.createdAt == 1_000)
            #expect(after.displayName == "Ana B.")
            #expect(after.lastActiveAt == 9_999)
            #expect(try await store.profile(userId: "ana") == after)
        }
    }

    @Test("setPremium creates a missing profile and every change is recorded for audit, oldest first", arguments: StoreBackend.all)
    func premiumAudit(_ backend: StoreBackend) async throws {
        try await backend.with { (store: any TestStore) async throws in
            let created = try await store.setPremium(userId: "bob", isPremium: true, actor: "billing", at: 10)
            #expect(created.isPremium)
            #expect(created.id == "bob")
            #expect(created.createdAt == 10)
            let revoked = try await store.setPremium(userId: "bob", isPremium: false, actor: "ops@example", at: 20)
            #expect(revoked.isPremium == false)
            _ = try await store.setPremium(userId: "other", isPremium: true, actor: "billing", at: 15)
            #expect(try await store.premiumChanges(userId: "bob") == [
                PremiumChange(userId: "bob", isPremium: true, actor: "billing", changedAt: 10),
                PremiumChange(userId: "bob", isPremium: false, actor: "ops@example", changedAt: 20),
            ])
            #expect(try await store.premiumChanges(userId: "nobody").isEmpty)
        }
    }
}
