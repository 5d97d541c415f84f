/// A request the hub refuses, with a stable machine-readable code and a human message.
public struct HubError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable codes (documented in `docs/PROTOCOL.md`).
    public enum Code: String, Sendable, Codable, CaseIterable {
        case unknownScenario = "unknown_scenario"
        case invalidField = "invalid_field"
        case missingField = "missing_field"
        case notInSession = "not_in_session"
        case alreadyInSession = "already_in_session"
        case unknownJoinCode = "unknown_join_code"
        case sessionFull = "session_full"
        case sessionEnded = "session_ended"
        case unknownLine = "unknown_line"
        case unknownRecast = "unknown_recast"
        case notAllowed = "not_allowed"
        case alreadyAccepted = "already_accepted"
        case invalidResumeToken = "invalid_resume_token"
        case invalidLastSeq = "invalid_last_seq"
        case textTooLong = "text_too_long"
        case emptyText = "empty_text"
        case invalidIssueType = "invalid_issue_type"
        case sessionLimit = "session_limit"
        case rateLimited = "rate_limited"
        /// The user already holds the most authenticated connections the server allows.
        case tooManyConnections = "too_many_connections"
        case joinLocked = "join_locked"
        case hubFull = "hub_full"
        case storageUnavailable = "storage_unavailable"
        /// The session's journal could not make a change durable: nothing was acknowledged, and
        /// the session takes no new change until its journal works again (``retryAfterSeconds``).
        case journalUnavailable = "journal_unavailable"
        /// A `say` whose `clientId` this speaker already used in this session: the line was
        /// accepted before (for example just before a failover) and is not recorded twice.
        case duplicateLine = "duplicate_line"
        /// The session is now owned by another node of the cluster: reconnect and resume there.
        case sessionMoved = "session_moved"
        /// `join` or `resume` of a session another node owns: ``HubError/location`` names it
        /// (connect there and send the request again); without a location the session is between
        /// owners and ``HubError/retryAfterSeconds`` says when to try again here.
        case sessionElsewhere = "session_elsewhere"
        case unsupportedVersion = "unsupported_version"
    }

    /// The stable code, sent as the `error` reply's `code`.
    public var code: Code
    /// A human-readable explanation, sent as its `message`.
    public var message: String
    /// Seconds after which the same request may succeed (``Code/joinLocked``,
    /// ``Code/journalUnavailable``); nil otherwise.
    public var retryAfterSeconds: Int?
    /// The node to go to (``Code/sessionElsewhere``); nil otherwise.
    public var location: NodeLocation?

    /// Creates an error.
    public init(_ code: Code, _ message: String, retryAfterSeconds: Int? = nil, location: NodeLocation? = nil) {
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
        self.location = location
    }

    /// `code: message`, with the code's raw value.
    public var description: String { "\(code.rawValue): \(message)" }
}
