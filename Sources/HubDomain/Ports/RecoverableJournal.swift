/// A ``SessionJournal`` that can be read back after a restart, so that sessions a crash left
/// open are rebuilt (``Hub/recover(from:)``).
public protocol RecoverableJournal: SessionJournal {
    /// Headers of the sessions opened and not closed, oldest first.
    func openSessions() async throws -> [SessionHeader]

    /// The entries of one session, in `seq` order.
    func entries(sessionId: String) async throws -> [JournalEntry]
}
