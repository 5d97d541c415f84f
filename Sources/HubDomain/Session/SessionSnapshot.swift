/// The full state of a live session as a member sees it.
public struct SessionSnapshot: Sendable, Equatable {
    /// The session's id (32 hex digits).
    public var sessionId: String
    /// The scenario being acted out.
    public var scenario: Scenario
    /// Present for shared sessions.
    public var joinCode: String?
    /// The current host's user id.
    public var hostId: String?
    /// Seats at most (1 for SOLO).
    public var maxPlayers: Int
    /// Epoch ms when the session was created.
    public var startedAt: Int64
    /// The present participants, in join order.
    public var participants: [ParticipantInfo]
    /// The transcript so far.
    public var lines: [DialogLine]
    /// Every recast so far, each marked accepted or not.
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
