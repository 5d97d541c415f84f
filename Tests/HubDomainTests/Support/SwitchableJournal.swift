import HubDomain
import Synchronization

/// An in-memory journal a test can take down (every write fails as if the store were
/// unreachable) or fence (every write is refused as if another node owned the session).
final class SwitchableJournal: RecoverableJournal {
    enum Mode { case up, down, fenced }
    struct Down: Error, CustomStringConvertible { var description: String { "store unreachable" } }

    private let inner = InMemorySessionJournal()
    private let state = Mutex((mode: Mode.up, attempts: 0, closed: [String]()))

    init() {}

    /// What the next writes do.
    func set(_ mode: Mode) { state.withLock { $0.mode = mode } }

    /// Writes attempted (successful or not).
    var attempts: Int { state.withLock { $0.attempts } }

    /// Sessions closed through the journal.
    var closedSessions: [String] { state.withLock { $0.closed } }

    private func admit(_ sessionId: String) throws {
        let mode = state.withLock { state -> Mode in
            state.attempts += 1
            return state.mode
        }
        switch mode {
        case .up: return
        case .down: throw Down()
        case .fenced: throw JournalFailure.fenced(sessionId: sessionId)
        }
    }

    func opened(_ header: SessionHeader) async throws {
        try admit(header.sessionId)
        try await inner.opened(header)
    }

    func append(_ entry: JournalEntry) async throws {
        try admit(entry.sessionId)
        try await inner.append(entry)
    }

    func closed(sessionId: String) async {
        state.withLock { $0.closed.append(sessionId) }
        await inner.closed(sessionId: sessionId)
    }

    func openSessions() async throws -> [SessionHeader] { try await inner.openSessions() }

    func entries(sessionId: String) async throws -> [JournalEntry] { try await inner.entries(sessionId: sessionId) }
}
