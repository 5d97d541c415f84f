import HubDomain

/// The JSON form of a ``HubDomain/EndedSession``, as kept in `sealed_sessions` until its
/// history write succeeds.
struct StoredEndedSession: Codable, Sendable, Equatable {
    var sessionId: String
    var scenarioId: String
    var scenarioTitle: String
    var targetLanguage: String
    var multiplayer: Bool
    var startedAt: Int64
    var endedAt: Int64
    var cause: EndCause
    var goalReached: Bool
    var lines: [DialogLine]
    var recasts: [Recast]
    var participants: [StoredEndedParticipant]

    init(_ session: EndedSession) {
        sessionId = session.sessionId
        scenarioId = session.scenarioId
        scenarioTitle = session.scenarioTitle
        targetLanguage = session.targetLanguage
        multiplayer = session.multiplayer
        startedAt = session.startedAt
        endedAt = session.endedAt
        cause = session.cause
        goalReached = session.goalReached
        lines = session.lines
        recasts = session.recasts
        participants = session.participants.map(StoredEndedParticipant.init)
    }

    /// The domain value.
    var session: EndedSession {
        EndedSession(sessionId: sessionId, scenarioId: scenarioId, scenarioTitle: scenarioTitle,
                     targetLanguage: targetLanguage, multiplayer: multiplayer, startedAt: startedAt,
                     endedAt: endedAt, cause: cause, goalReached: goalReached, lines: lines, recasts: recasts,
                     participants: participants.map(\.participant))
    }
}
