import HubDomain

extension ServerMessage {
    /// `participants`: membership or connection state changed.
    public struct ParticipantsBroadcast: Decodable, Sendable, Equatable {
        /// The session (32 hex digits).
        public var sessionId: String
        /// The broadcast's number in its session: 1, 2, 3, … without gaps.
        public var seq: Int
        /// Who, and what happened (`joined`, `left`, `disconnected`, `reconnected`, `expired`, `removed`).
        public var change: PresenceChange
        /// The present participants after the change, in join order.
        public var participants: [ParticipantInfo]
    }

    /// `line`: a line was spoken; the speaker's copy (with its `ref`) is its acknowledgement.
    public struct LineBroadcast: Decodable, Sendable, Equatable {
        /// The session (32 hex digits).
        public var sessionId: String
        /// The broadcast's number in its session: 1, 2, 3, … without gaps.
        public var seq: Int
        /// The speaker's request id (everyone sees it).
        public var ref: String?
        /// The line as the hub stored it (trimmed, with its id and timestamp).
        public var line: DialogLine
    }

    /// `recast`: a participant offered a correction of someone else's line.
    public struct RecastBroadcast: Decodable, Sendable, Equatable {
        /// The session (32 hex digits).
        public var sessionId: String
        /// The broadcast's number in its session: 1, 2, 3, … without gaps.
        public var seq: Int
        /// The author's request id (everyone sees it).
        public var ref: String?
        /// The correction as the hub stored it.
        public var recast: Recast
    }

    /// `recastAccepted`: the speaker accepted a correction of their line.
    public struct RecastAcceptedBroadcast: Decodable, Sendable, Equatable {
        /// The session (32 hex digits).
        public var sessionId: String
        /// The broadcast's number in its session: 1, 2, 3, … without gaps.
        public var seq: Int
        /// The speaker's request id (everyone sees it).
        public var ref: String?
        /// The accepted recast.
        public var recastId: String
        /// The corrected line.
        public var lineId: String
        /// The speaker, who accepted.
        public var userId: String
    }

    /// `hostChanged`: the host's seat was released and `userId` hosts now.
    public struct HostChangedBroadcast: Decodable, Sendable, Equatable {
        /// The session (32 hex digits).
        public var sessionId: String
        /// The broadcast's number in its session: 1, 2, 3, … without gaps.
        public var seq: Int
        /// The new host.
        public var userId: String
    }

    /// `stats`: live figures of the participants whose figures changed (no history result).
    public struct StatsBroadcast: Decodable, Sendable, Equatable {
        /// The session (32 hex digits).
        public var sessionId: String
        /// The broadcast's number in its session: 1, 2, 3, … without gaps.
        public var seq: Int
        /// Live figures of the participants whose figures changed since the previous `stats`.
        public var participants: [ParticipantStats]
    }

    /// `ended`: the session is over, with everyone's final figures and history result.
    public struct EndedBroadcast: Decodable, Sendable, Equatable {
        /// The session (32 hex digits).
        public var sessionId: String
        /// The broadcast's number in its session: 1, 2, 3, … without gaps.
        public var seq: Int
        /// The id of the `end` request that ended it, when a participant did.
        public var ref: String?
        /// Why it ended.
        public var cause: EndCause
        /// Epoch milliseconds.
        public var endedAt: Int64
        /// Whole seconds since the session started.
        public var durationSeconds: Int
        /// Whether the lines spoken reached the scenario's goal.
        public var goalReached: Bool
        /// Everyone who ever held a seat, including those who left.
        public var participants: [FinalFigures]
    }
}
