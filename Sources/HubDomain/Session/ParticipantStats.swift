/// One participant's figures, live or final.
public struct ParticipantStats: Sendable, Equatable, Codable {
    public var userId: String
    public var stats: SessionStats
    public var collaboration: CollaborationStats
    /// Recasts this participant received, by issue type: their weak spots.
    public var weakSpots: [String: Int]

    /// Creates the figures.
    public init(userId: String, stats: SessionStats, collaboration: CollaborationStats, weakSpots: [String: Int]) {
        self.userId = userId
        self.stats = stats
        self.collaboration = collaboration
        self.weakSpots = weakSpots
    }
}
