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
        var status: String
        var reason: String?
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
