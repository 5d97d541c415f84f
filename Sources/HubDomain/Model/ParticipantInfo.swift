/// What every member sees of a participant.
public struct ParticipantInfo: Codable, Sendable, Equatable {
    public var userId: String
    public var displayName: String
    public var roleName: String
    public var mode: SessionMode
    public var isHost: Bool
    /// False while the participant's seat is held in the grace window.
    public var connected: Bool

    /// Creates the snapshot.
    public init(userId: String, displayName: String, roleName: String, mode: SessionMode, isHost: Bool, connected: Bool) {
        self.userId = userId
        self.displayName = displayName
        self.roleName = roleName
        self.mode = mode
        self.isHost = isHost
        self.connected = connected
    }
}
