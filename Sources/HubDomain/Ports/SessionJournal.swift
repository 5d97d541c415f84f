/// The append-only record of a live session: every accepted line, recast, accepted recast and
/// membership change is appended here before it is broadcast. The storage layer makes it
/// durable (group-committed); ``InMemorySessionJournal`` keeps it in memory.
///
/// A session's life in the journal: ``opened(_:)`` once, before its first entry; ``append(_:)``
/// for each broadcast except `ended`; ``closed(sessionId:)`` once its history is written (a
/// storage that writes history may drop the journal in that same transaction, which makes
/// `closed` a no-op).
public protocol SessionJournal: Sendable {
    /// Records that a session exists; returns once it is durable. Called before the session's
    /// first ``append(_:)``.
    func opened(_ header: SessionHeader) async throws

    /// Appends an entry; returns once it is durable. Entries of one session arrive in `seq` order.
    func append(_ entry: JournalEntry) async throws

    /// Appends consecutive entries of one session, in `seq` order, as one write where the storage
    /// can (one transaction); returns once all are durable. When it throws, the caller treats
    /// every entry as not written and appends them again later: storage must take a repeated
    /// (session, seq) as the same entry.
    func append(contentsOf entries: [JournalEntry]) async throws

    /// The session ended and its history was written (or sealed for retry): its entries are no
    /// longer needed. Failures are the journal's to log; the session is over either way.
    func closed(sessionId: String) async
}

extension SessionJournal {
    /// One ``append(_:)`` after the other.
    public func append(contentsOf entries: [JournalEntry]) async throws {
        for entry in entries { try await append(entry) }
    }

    /// Journals that cannot rebuild sessions need no header.
    public func opened(_ header: SessionHeader) async throws {}

    /// Journals that keep nothing have nothing to drop.
    public func closed(sessionId: String) async {}
}
