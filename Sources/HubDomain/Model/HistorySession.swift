/// One session in one user's history, field for field the SDK's `HistorySession`, plus what the
/// hub knows of a session it recorded itself: the scenario, the recasts and that user's figures.
///
/// The hub fills every field of the sessions it records. A session the user's app saved on its
/// own (`POST /api/history`) carries the SDK's fields and whichever extras the app sent; the
/// others are nil and absent from its JSON.
public struct HistorySession: Codable, Sendable, Equatable {
    public var sessionId: String
    public var scenarioTitle: String
    /// When it ended (was saved), epoch ms.
    public var timestamp: Int64
    /// The user's current target language, else the scenario's.
    public var targetLanguage: String
    public var durationSeconds: Int
    /// The full transcript.
    public var dialogLines: [DialogLine]
    /// The scenario played; nil when the app that saved the session did not say.
    public var scenarioId: String?
    /// The corrections offered during the session; nil when the app that saved it sent none.
    public var recasts: [Recast]?
    /// This user's stats (with XP); nil when the app that saved the session sent none.
    public var stats: SessionStats?
    /// This user's collaboration counters; nil when the app that saved the session sent none.
    public var collaboration: CollaborationStats?

    /// Creates the record.
    public init(sessionId: String, scenarioTitle: String, timestamp: Int64, targetLanguage: String,
                durationSeconds: Int, dialogLines: [DialogLine], scenarioId: String? = nil, recasts: [Recast]? = nil,
                stats: SessionStats? = nil, collaboration: CollaborationStats? = nil) {
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
