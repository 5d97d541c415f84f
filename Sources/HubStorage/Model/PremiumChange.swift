/// One change of a user's premium flag, as recorded for audit.
public struct PremiumChange: Codable, Sendable, Equatable {
    public var userId: String
    public var isPremium: Bool
    /// Who changed it (the admin token's subject).
    public var actor: String
    /// Epoch ms.
    public var changedAt: Int64

    /// Creates a record.
    public init(userId: String, isPremium: Bool, actor: String, changedAt: Int64) {
        self.userId = userId
        self.isPremium = isPremium
        self.actor = actor
        self.changedAt = changedAt
    }
}
