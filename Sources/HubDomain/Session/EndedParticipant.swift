/// One participant of an ended session.
public struct EndedParticipant: Sendable, Equatable {
    public var userId: String
    public var displayName: String
    public var roleName: String
    /// Final figures, XP included.
    public var figures: ParticipantStats
    /// Words (lowercased) met in this session that were new to the user.
    public var newWords: Set<String>

    /// Creates the record.
    public init(userId: String, displayName: String, roleName: String, figures: ParticipantStats, newWords: Set<String>) {
        self.userId = userId
        self.displayName = displayName
        self.roleName = roleName
        self.figures = figures
        self.newWords = newWords
    }
}
