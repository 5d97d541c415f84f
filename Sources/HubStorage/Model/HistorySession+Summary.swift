import HubDomain

extension HistorySession {
    /// The entry as listings show it (`xpEarned` 0 when the entry has no stats).
    public var summary: HistorySummary {
        HistorySummary(sessionId: sessionId, scenarioTitle: scenarioTitle, timestamp: timestamp,
                       targetLanguage: targetLanguage, durationSeconds: durationSeconds,
                       lineCount: dialogLines.count, xpEarned: stats?.xpEarned ?? 0)
    }
}
