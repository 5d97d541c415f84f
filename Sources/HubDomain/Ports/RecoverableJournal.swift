/// A ``SessionJournal`` that can be read back after a restart, so that sessions a crash left
/// open are rebuilt (``Hub/recover(from:)``).
public protocol RecoverableJournal: SessionJournal {
    /// Headers of the sessions opened and not closed, oldest first.
    func openSessions() async throws -> [SessionHeader]

    /// The entries of one session, in `seq` order.
    func entries(sessionId: String) async throws -> [JournalEntry]

    /// The entries of several sessions, each in `seq` order (a session without any is left
    /// out or empty): what a rebuild reads, in one pass where the journal can.
    func entries(sessionIds: [String]) async throws -> [String: [JournalEntry]]
}

extension RecoverableJournal {
    /// One ``entries(sessionId:)`` per session.
    public func entries(sessionIds: [String]) async throws -> [String: [JournalEntry]] {
        var result: [String: [JournalEntry]] = [:]
        for sessionId in sessionIds { result[sessionId] = try await entries(sessionId: sessionId) }
        return result
    }
}
