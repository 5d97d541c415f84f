import HubDomain
import HubProtocol

/// A session as the client sees it, always consistent: the `joined` snapshot with every later
/// broadcast applied in `seq` order, each exactly once. This is what an app renders.
///
/// Codable for a ``SessionHubClientStore``; ``ended`` is not stored (a session that ended has no
/// seat to come back to).
public struct SessionModel: Sendable, Equatable, Codable {
    /// The session.
    public var sessionId: String
    /// Its scenario.
    public var scenario: Scenario
    /// The code others join with (nil for a solo session).
    public var joinCode: String?
    /// The current host.
    public var hostId: String?
    /// Seats at most.
    public var maxPlayers: Int
    /// When it started (epoch ms).
    public var startedAt: Int64
    /// The `seq` of the last broadcast applied: a resume's `lastSeq`.
    public var seq: Int
    /// The present participants, in join order.
    public var participants: [ParticipantInfo]
    /// Every line, in order.
    public var lines: [DialogLine]
    /// Every correction, in order (`accepted` kept up to date).
    public var recasts: [Recast]
    /// The latest figures of each participant: live ones from `stats` broadcasts while the
    /// session runs — only those sent since this client joined, as a snapshot carries none — and,
    /// once it ended, everyone's final figures (the same for every member).
    public var stats: [String: ParticipantStats]
    /// The end, once the session is over.
    public var ended: ServerMessage.EndedBroadcast? = nil

    private enum CodingKeys: String, CodingKey {
        case sessionId, scenario, joinCode, hostId, maxPlayers, startedAt, seq, participants, lines, recasts, stats
    }

    /// The model of a `joined` (or `resumed`) snapshot.
    public init(_ snapshot: ServerMessage.Snapshot) {
        sessionId = snapshot.sessionId
        scenario = snapshot.scenario
        joinCode = snapshot.joinCode
        hostId = snapshot.hostId
        maxPlayers = snapshot.maxPlayers
        startedAt = snapshot.startedAt
        seq = snapshot.seq
        participants = snapshot.participants
        lines = snapshot.lines
        recasts = snapshot.recasts
        stats = [:]
    }

    /// What applying a broadcast did.
    public enum Outcome: Sendable, Equatable {
        /// Applied: it was the next `seq`.
        case applied
        /// Already applied (a `seq` at or below ``seq``): ignored.
        case duplicate
        /// Of another session: ignored.
        case foreign
        /// A `seq` was skipped: not applied; the model needs a resume to catch up.
        case gap(expected: Int, got: Int)
        /// Not a broadcast.
        case notABroadcast
    }

    /// Applies `message` if it is this session's next broadcast.
    @discardableResult
    public mutating func apply(_ message: ServerMessage) -> Outcome {
        guard let seq = message.seq, let sessionId = message.sessionId else { return .notABroadcast }
        guard sessionId == self.sessionId else { return .foreign }
        if seq <= self.seq { return .duplicate }
        if seq != self.seq + 1 { return .gap(expected: self.seq + 1, got: seq) }
        switch message {
        case .participants(let m):
            participants = m.participants
        case .line(let m):
            lines.append(m.line)
        case .recast(let m):
            recasts.append(m.recast)
        case .recastAccepted(let m):
            if let index = recasts.firstIndex(where: { $0.id == m.recastId }) { recasts[index].accepted = true }
        case .hostChanged(let m):
            hostId = m.userId
        case .stats(let m):
            for figures in m.participants { stats[figures.userId] = figures }
        case .ended(let m):
            ended = m
            stats = Dictionary(m.participants.map { ($0.userId, $0.figures) }, uniquingKeysWith: { _, last in last })
        case .welcome, .joined, .resumed, .scenarios, .pong, .left, .error, .other:
            break
        }
        self.seq = seq
        return .applied
    }
}
