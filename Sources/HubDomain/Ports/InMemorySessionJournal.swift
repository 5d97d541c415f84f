import SessionHubSync

/// A journal in memory: the default until a durable one is configured, and a test double.
/// It can be read back (``RecoverableJournal``), which lets tests rebuild sessions from it.
public final class InMemorySessionJournal: RecoverableJournal {
    private struct State {
        var headers: [String: SessionHeader] = [:]
        var order: [String] = []
        var entries: [String: [JournalEntry]] = [:]
    }

    private let state = LockedValue(State())

    /// An empty journal.
    public init() {}

    /// Records the session's header.
    public func opened(_ header: SessionHeader) async throws {
        state.withLock { state in
            if state.headers.updateValue(header, forKey: header.sessionId) == nil { state.order.append(header.sessionId) }
        }
    }

    /// Stores the entry.
    public func append(_ entry: JournalEntry) async throws {
        state.withLock { $0.entries[entry.sessionId, default: []].append(entry) }
    }

    /// Forgets the session.
    public func closed(sessionId: String) async {
        remove(sessionId)
    }

    /// Headers of the sessions not closed, in the order they opened.
    public func openSessions() async throws -> [SessionHeader] {
        state.withLock { state in state.order.compactMap { state.headers[$0] } }
    }

    /// The entries of one session, in `seq` order.
    public func entries(sessionId: String) async throws -> [JournalEntry] {
        entries(of: sessionId)
    }

    /// The entries of one session, in the order appended.
    public func entries(of sessionId: String) -> [JournalEntry] {
        state.withLock { $0.entries[sessionId] ?? [] }
    }

    /// Forgets a session's header and entries.
    public func remove(_ sessionId: String) {
        state.withLock { state in
            state.headers[sessionId] = nil
            state.order.removeAll { $0 == sessionId }
            state.entries[sessionId] = nil
        }
    }
}
