/// What every member sees of a participant.
public struct ParticipantInfo: Codable, Sendable, Equatable {
    /// The participant's user id.
    public var userId: String
    /// The name shown to others, from the user's token.
    public var displayName: String
    /// The scenario role they play.
    public var roleName: String
    /// How they entered; it does not change when hosting moves.
    public var mode: SessionMode
    /// Whether this participant is the host now.
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
