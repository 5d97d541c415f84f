import HubDomain

extension HistorySession {
    /// The history entry of one participant of an ended session, in `language` (the
    /// participant's current target language, else the scenario's): what every store saves.
    package init(_ session: EndedSession, for participant: EndedParticipant, language: String) {
        self.init(sessionId: session.sessionId, scenarioTitle: session.scenarioTitle, timestamp: session.endedAt,
                  targetLanguage: language, durationSeconds: session.durationSeconds, dialogLines: session.lines,
                  scenarioId: session.scenarioId, recasts: session.recasts, stats: participant.figures.stats,
                  collaboration: participant.figures.collaboration)
    }
}
