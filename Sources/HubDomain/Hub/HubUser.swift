/// An authenticated user as the hub knows them.
public struct HubUser: Sendable, Equatable {
    public var id: String
    public var displayName: String

    /// Creates a user.
    public init(id: String, displayName: String) {
        self.id = id
        self.displayName = displayName
    }
}
