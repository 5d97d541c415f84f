/// The full state of a live session as a member sees it.
public struct SessionSnapshot: Sendable, Equatable {
    public var sessionId: String
    public var scenario: Scenario
    /// Present for shared sessions.
    public var joinCode: String?
    public var hostId: String?
    public var maxPlayers: Int
    public var startedAt: Int64
    public var participants: [ParticipantInfo]
    public var lines: [DialogLine]
    public var recasts: [Recast]
    /// The seq of the last broadcast included in this state; later broadcasts follow.
    public var seq: Int
    /// The user the snapshot was made for.
    public var you: ParticipantInfo

    /// Creates a snapshot.
    public init(sessionId: String, scenario: Scenario, joinCode: String?, hostId: String?, maxPlayers: Int,
                startedAt: Int64, participants: [ParticipantInfo], lines: [DialogLine], recasts: [Recast],
                seq: Int, you: ParticipantInfo) {
        self.sessionId = sessionId
        self.scenario = scenario
        self.joinCode = joinCode
        self.hostId = hostId
        self.maxPlayers = maxPlayers
        self.startedAt = startedAt
        self.participants = participants
        self.lines = lines
        self.recasts = recasts
        self.seq = seq
        self.you = you
    }
}
