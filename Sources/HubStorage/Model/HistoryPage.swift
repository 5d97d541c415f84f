/// One page of a user's history: `{"total": N, "sessions": [...]}`, most recent first.
public struct HistoryPage: Codable, Sendable, Equatable {
    /// All entries the user has.
    public var total: Int
    /// This page's entries.
    public var sessions: [HistorySummary]

    /// Creates a page.
    public init(total: Int, sessions: [HistorySummary]) {
        self.total = total
        self.sessions = sessions
    }
}
