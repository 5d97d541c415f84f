import HubDomain

/// One page of a user's history with whole sessions (transcripts included):
/// `{"total": N, "sessions": [...]}`, most recent first.
public struct HistorySessionPage: Codable, Sendable, Equatable {
    /// All entries the user has.
    public var total: Int
    /// This page's entries.
    public var sessions: [HistorySession]

    /// Creates a page.
    public init(total: Int, sessions: [HistorySession]) {
        self.total = total
        self.sessions = sessions
    }
}
