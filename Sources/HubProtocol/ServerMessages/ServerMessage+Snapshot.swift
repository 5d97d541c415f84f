import HubDomain

extension ServerMessage {
    /// A `SessionSnapshot` as decoded from `joined` or `resumed` (section 8).
    public struct Snapshot: Decodable, Sendable, Equatable {
        /// The session (32 hex digits).
        public var sessionId: String
        /// The scenario, with its roles, goal and hints.
        public var scenario: Scenario
        /// Null for SOLO sessions.
        public var joinCode: String?
        /// The current host; null when nobody present can host.
        public var hostId: String?
        /// Seats in the session (1 for SOLO).
        public var maxPlayers: Int
        /// Epoch milliseconds.
        public var startedAt: Int64
        /// The last broadcast this state includes.
        public var seq: Int
        /// The member the snapshot is for.
        public var you: ParticipantInfo
        /// Present participants, join order.
        public var participants: [ParticipantInfo]
        /// The transcript so far.
        public var lines: [DialogLine]
        /// All recasts so far.
        public var recasts: [Recast]

        /// The same state as the hub domain's ``HubDomain/SessionSnapshot``.
        public var sessionSnapshot: SessionSnapshot {
            SessionSnapshot(sessionId: sessionId, scenario: scenario, joinCode: joinCode, hostId: hostId,
                            maxPlayers: maxPlayers, startedAt: startedAt, participants: participants,
                            lines: lines, recasts: recasts, seq: seq, you: you)
        }
    }
}
