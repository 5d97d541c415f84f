import HubDomain

/// Learner profiles (the SDK's repository pattern).
public protocol ProfileRepository: Sendable {
    /// The profile, or nil for a user never seen.
    func profile(userId: String) async throws -> UserProfile?
    /// Creates or replaces a profile, keeping the stored `isPremium` and `createdAt` (a user can
    /// never make themselves premium). Returns what is stored.
    func saveProfile(_ profile: UserProfile) async throws -> UserProfile
    /// Sets the premium flag (creating a default profile when missing) and records who did it.
    func setPremium(userId: String, isPremium: Bool, actor: String, at: Int64) async throws -> UserProfile
    /// The recorded premium changes of a user, oldest first.
    func premiumChanges(userId: String) async throws -> [PremiumChange]
}
