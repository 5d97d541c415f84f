/// An authenticated user as the hub knows them.
public struct HubUser: Sendable, Equatable {
    /// The user id: the token's `sub`.
    public var id: String
    /// The name shown to others: the token's `name`.
    public var displayName: String

    /// Creates a user.
    public init(id: String, displayName: String) {
        self.id = id
        self.displayName = displayName
    }
}
