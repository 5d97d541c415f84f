import HubDomain
import HubProtocol

/// One player in the bot's JSON summary: what it did, what it saw, and its final figures from `ended`.
struct PlayerReport: Sendable, Encodable {
    /// The hub's user id.
    var userId: String
    var roleName: String?
    /// `SOLO`, `HOST` or `CLIENT`.
    var mode: String?
    /// Connections opened (2 after a drop and resume).
    var connections: Int
    var connectedAtEnd: Bool
    /// Highest seq applied.
    var lastSeq: Int
    var receivedEnded: Bool
    /// Own lines acknowledged by the hub.
    var linesSpoken: Int
    /// Own recasts acknowledged by the hub.
    var recastsGiven: Int
    /// Corrections of own lines accepted.
    var recastsAccepted: Int
    /// Requests refused because the session had just ended.
    var lateRequests: Int
    var rateLimitedRetries: Int
    /// Requests never answered.
    var unanswered: Int
    var problems: [String]
    /// From `ended`: final XP.
    var xpEarned: Int?
    /// From `ended`: the final `SessionStats`.
    var stats: SessionStats?
    /// From `ended`.
    var collaboration: CollaborationStats?
    /// From `ended`.
    var weakSpots: [String: Int]?
    /// From `ended`: `{"status":"Success"}` or `{"status":"Error","reason":"featureLocked"}`.
    var history: HistoryStatus?

    /// The history result as it appears in the summary.
    struct HistoryStatus: Sendable, Encodable {
        /// `Success` or `Error`.
        var status: String
        /// With `Error`: `featureLocked` or `networkError`; otherwise null.
        var reason: String?

        private enum CodingKeys: String, CodingKey {
            case status, reason
        }

        /// Both keys, `reason` null after a success.
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(status, forKey: .status)
            try c.encode(reason, forKey: .reason)
        }
    }

    private enum CodingKeys: String, CodingKey {
        case userId, roleName, mode, connections, connectedAtEnd, lastSeq, receivedEnded, linesSpoken,
             recastsGiven, recastsAccepted, lateRequests, rateLimitedRetries, unanswered, problems, xpEarned,
             stats, collaboration, weakSpots, history
    }

    /// Every field, `null` included: each player has the same keys.
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(userId, forKey: .userId)
        try c.encode(roleName, forKey: .roleName)
        try c.encode(mode, forKey: .mode)
        try c.encode(connections, forKey: .connections)
        try c.encode(connectedAtEnd, forKey: .connectedAtEnd)
        try c.encode(lastSeq, forKey: .lastSeq)
        try c.encode(receivedEnded, forKey: .receivedEnded)
        try c.encode(linesSpoken, forKey: .linesSpoken)
        try c.encode(recastsGiven, forKey: .recastsGiven)
        try c.encode(recastsAccepted, forKey: .recastsAccepted)
        try c.encode(lateRequests, forKey: .lateRequests)
        try c.encode(rateLimitedRetries, forKey: .rateLimitedRetries)
        try c.encode(unanswered, forKey: .unanswered)
        try c.encode(problems, forKey: .problems)
        try c.encode(xpEarned, forKey: .xpEarned)
        try c.encode(stats, forKey: .stats)
        try c.encode(collaboration, forKey: .collaboration)
        try c.encode(weakSpots, forKey: .weakSpots)
        try c.encode(history, forKey: .history)
    }

    /// Adds the final figures of `ended`.
    mutating func fill(from figures: ServerMessage.FinalFigures) {
        xpEarned = figures.stats.xpEarned
        stats = figures.stats
        collaboration = figures.collaboration
        weakSpots = figures.weakSpots
        history = HistoryStatus(status: figures.history.status, reason: figures.history.reason)
    }
}
