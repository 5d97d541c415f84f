import HubDomain

/// One ended session in one user's history: the SDK's `HistorySession` fields plus the recasts
/// and that user's own figures.
public struct HistorySession: Codable, Sendable, Equatable {
    public var sessionId: String
    public var scenarioTitle: String
    /// When it ended (saved), epoch ms.
    public var timestamp: Int64
    /// The user's current target language, else the scenario's.
    public var targetLanguage: String
    public var durationSeconds: Int
    /// The full transcript.
    public var dialogLines: [DialogLine]
    public var scenarioId: String
    public var recasts: [Recast]
    /// This user's stats (with XP).
    public var stats: SessionStats
    public var collaboration: CollaborationStats

    /// Creates the record.
    public init(sessionId: String, scenarioTitle: String, timestamp: Int64, targetLanguage: String,
                durationSeconds: Int, dialogLines: [DialogLine], scenarioId: String, recasts: [Recast],
                stats: SessionStats, collaboration: CollaborationStats) {
        self.sessionId = sessionId
        self.scenarioTitle = scenarioTitle
        self.timestamp = timestamp
        self.targetLanguage = targetLanguage
        self.durationSeconds = durationSeconds
        self.dialogLines = dialogLines
        self.scenarioId = scenarioId
        self.recasts = recasts
        self.stats = stats
        self.collaboration = collaboration
    }
}

extension HistorySession {
    /// The entry as listings show it.
    public var summary: HistorySummary {
        HistorySummary(sessionId: sessionId, scenarioTitle: scenarioTitle, timestamp: timestamp,
                       targetLanguage: targetLanguage, durationSeconds: durationSeconds,
                       lineCount: dialogLines.count, xpEarned: stats.xpEarned)
    }
}
