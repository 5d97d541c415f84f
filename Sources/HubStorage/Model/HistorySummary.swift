/// A history entry without its transcript, for listings.
public struct HistorySummary: Codable, Sendable, Equatable {
    public var sessionId: String
    public var scenarioTitle: String
    public var timestamp: Int64
    public var targetLanguage: String
    public var durationSeconds: Int
    public var lineCount: Int
    public var xpEarned: Int

    /// Creates a summary.
    public init(sessionId: String, scenarioTitle: String, timestamp: Int64, targetLanguage: String,
                durationSeconds: Int, lineCount: Int, xpEarned: Int) {
        self.sessionId = sessionId
        self.scenarioTitle = scenarioTitle
        self.timestamp = timestamp
        self.targetLanguage = targetLanguage
        self.durationSeconds = durationSeconds
        self.lineCount = lineCount
        self.xpEarned = xpEarned
    }
}

