import Synchronization

/// A journal that keeps entries in memory (lost with the process). The default until a durable
/// store is configured, and the one tests read.
public final class InMemorySessionJournal: SessionJournal {
    private let entries = Mutex<[String: [JournalEntry]]>([:])

    /// Creates an empty journal.
    public init() {}

    public func append(_ entry: JournalEntry) async throws {
        entries.withLock { $0[entry.sessionId, default: []].append(entry) }
    }

    /// The entries of one session, in order.
    public func entries(of sessionId: String) -> [JournalEntry] {
        entries.withLock { $0[sessionId] ?? [] }
    }

    /// Forgets a session (after it was sealed into history).
    public func remove(_ sessionId: String) {
        _ = entries.withLock { $0.removeValue(forKey: sessionId) }
    }
}
