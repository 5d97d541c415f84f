import HubDomain
import HubStorage

/// Saves through another ``HubDomain/HistoryWriter``, then pushes `historyUpdated` to every
/// open connection of each participant whose history gained the session — the WebSocket
/// counterpart of observing the SDK's `history` flow. Runs off the event loops (``OffTheLoops``).
struct NotifyingHistoryWriter: HistoryWriter {
    let inner: any HistoryWriter
    let channels: UserChannels
    /// Where the saved entries can be read back, so the push shows exactly what was stored
    /// (the entry's language is the user's, which the ended session does not know).
    let history: (any HistoryRepository)?
    /// Counts each participant's result.
    let metrics: HubMetrics

    var recordsNewWords: Bool { inner.recordsNewWords }

    func save(_ session: EndedSession) async -> [String: HistoryWriteResult] {
        await OffTheLoops.run { await saveAndNotify(session) }
    }

    private func saveAndNotify(_ session: EndedSession) async -> [String: HistoryWriteResult] {
        let results = await inner.save(session)
        for result in results.values {
            switch result {
            case .success: metrics.historyWrite("success")
            case .error(.featureLocked): metrics.historyWrite("feature_locked")
            case .error: metrics.historyWrite("failed")
            }
        }
        for participant in session.participants where results[participant.userId] == .success {
            var summary = HistorySummary(sessionId: session.sessionId, scenarioTitle: session.scenarioTitle,
                                         timestamp: session.endedAt, targetLanguage: session.targetLanguage,
                                         durationSeconds: session.durationSeconds, lineCount: session.lines.count,
                                         xpEarned: participant.figures.stats.xpEarned)
            if let stored = try? await history?.getSession(userId: participant.userId, sessionId: session.sessionId) {
                summary = stored.summary
            }
            if let text = AccountRequests.historyUpdated(summary) { channels.send(text, to: participant.userId) }
        }
        return results
    }
}
