import HubDomain

extension ServerMessage {
    /// `welcome` (section 4): who the hub thinks you are, its limits, and a seat you may resume.
    public struct Welcome: Decodable, Sendable, Equatable {
        /// Present when answering `hello` or `auth` with an id.
        public var ref: String?
        /// `1`.
        public var protocolVersion: Int
        /// The token's `sub`.
        public var userId: String
        /// The token's `name`.
        public var displayName: String
        /// Server clock, epoch milliseconds.
        public var serverTime: Int64
        /// `maxTextLength`, `maxMessageBytes`, `graceSeconds`, `linesPerSecond`,
        /// `maxPlayersPerSession`, and whatever a later hub adds.
        public var limits: [String: Int]
        /// The session in which this user holds a seat, if any: send `resume` to take it back.
        public var resumableSessionId: String?
        /// The node that owns that session.
        public var resumableNode: String?
        /// Where to connect to resume, when that node is not the one answering.
        public var resumableUrl: String?
    }

    /// `joined`: the answer to `startSolo`, `host` or `join`.
    public struct Joined: Decodable, Sendable, Equatable {
        /// The id of the request this answers, as a string; absent when the request had none.
        public var ref: String?
        /// Keep it to `resume` after a dropped connection (32 hex digits).
        public var resumeToken: String
        /// The state to start from; broadcasts continue at `session.seq + 1`.
        public var session: Snapshot
    }

    /// How a `resume` was answered.
    public enum ResumeMode: String, Decodable, Sendable, Equatable {
        /// `replayed` missed broadcasts follow, in seq order.
        case replay
        /// Too much was missed: `session` replaces the client's state.
        case snapshot
    }

    /// `resumed`: the answer to `resume`.
    public struct Resumed: Decodable, Sendable, Equatable {
        /// The id of the request this answers, as a string; absent when the request had none.
        public var ref: String?
        /// The new resume token (the previous one stops working).
        public var resumeToken: String
        /// Replay or snapshot.
        public var mode: ResumeMode
        /// Number of broadcasts that follow (0 in snapshot mode).
        public var replayed: Int
        /// The full state, in snapshot mode only.
        public var session: Snapshot?
    }

    /// `scenarios`: the catalogue, sorted by title.
    public struct ScenarioList: Decodable, Sendable, Equatable {
        /// The id of the request this answers, as a string; absent when the request had none.
        public var ref: String?
        /// Every scenario of the hub's catalogue.
        public var scenarios: [Scenario]
    }

    /// `pong`: the answer to `ping`.
    public struct Pong: Decodable, Sendable, Equatable {
        /// The id of the request this answers, as a string; absent when the request had none.
        public var ref: String?
        /// Server clock, epoch milliseconds.
        public var serverTime: Int64
    }

    /// `left`: the connection is back in the lobby.
    public struct Left: Decodable, Sendable, Equatable {
        /// Only when answering `leave`.
        public var ref: String?
        /// `left`, `ended`, `replaced` or `removed`.
        public var reason: String
    }

    /// `error`: a refused request; nothing changed.
    public struct ErrorReply: Decodable, Sendable, Equatable {
        /// The request's id, when it could be read.
        public var ref: String?
        /// A stable code (section 9), e.g. `not_allowed`.
        public var code: String
        /// A human explanation.
        public var message: String
        /// Seconds after which the same request may succeed.
        public var retryAfter: Int?
        /// The node to send the request to instead (`session_elsewhere`).
        public var node: String?
        /// That node's WebSocket URL.
        public var url: String?
    }
}
