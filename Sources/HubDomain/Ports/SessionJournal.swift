/// The append-only record of a live session: every accepted line, recast, accepted recast and
/// membership change is appended here before it is broadcast. The storage layer makes it
/// durable (group-committed); ``InMemorySessionJournal`` keeps it in memory.
public protocol SessionJournal: Sendable {
    /// Appends an entry; returns once it is durable. Entries of one session arrive in `seq` order.
    func append(_ entry: JournalEntry) async throws
}
