import HubDomain
import HubProtocol

extension BotPlayer {
    /// The highest seq applied: the `lastSeq` of a resume.
    var lastSeq: Int { tracker.lastSeq ?? 0 }

    /// Whether every request sent has been answered.
    var isIdle: Bool { pending.isEmpty }

    /// Requests still unanswered.
    var unanswered: Int { pending.count }

    /// The player's role.
    var roleName: String? { session?.you.roleName }

    /// Whether this player received `participants` with `change`.
    func hasSeen(_ change: PresenceChange) -> Bool { presence.contains(change) }

    /// Whether the session is over for this player: `ended`, then `left{ended}`.
    var isDone: Bool { ended != nil && leftAfterEnd }

    /// What the summary says about this player.
    func report() -> PlayerReport {
        PlayerReport(userId: userId, roleName: session?.you.roleName, mode: session?.you.mode.rawValue,
                     connections: connections, connectedAtEnd: isConnected, lastSeq: lastSeq,
                     receivedEnded: ended != nil, linesSpoken: linesSpoken, recastsGiven: recastsGiven,
                     recastsAccepted: recastsAccepted, lateRequests: lateRequests,
                     rateLimitedRetries: rateLimitedRetries, unanswered: pending.count, problems: problems)
    }
}
