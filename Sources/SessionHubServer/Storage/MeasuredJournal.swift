import Dispatch
import HubDomain

/// The hub's journal with metrics: how long each write takes to be durable
/// (`sessionhub_journal_commit_seconds`, group commit included) and how it ended
/// (`sessionhub_journal_writes_total{result}`: `ok`, `failed`, `fenced`). Everything else is the
/// inner journal's.
struct MeasuredJournal: RecoverableJournal {
    let inner: any SessionJournal
    let metrics: HubMetrics

    func opened(_ header: SessionHeader) async throws {
        try await measure { try await inner.opened(header) }
    }

    func append(_ entry: JournalEntry) async throws {
        try await measure { try await inner.append(entry) }
    }

    func append(contentsOf entries: [JournalEntry]) async throws {
        try await measure { try await inner.append(contentsOf: entries) }
    }

    func closed(sessionId: String) async {
        await inner.closed(sessionId: sessionId)
    }

    func openSessions() async throws -> [SessionHeader] {
        try await (inner as? any RecoverableJournal)?.openSessions() ?? []
    }

    func entries(sessionId: String) async throws -> [JournalEntry] {
        try await (inner as? any RecoverableJournal)?.entries(sessionId: sessionId) ?? []
    }

    func entries(sessionIds: [String]) async throws -> [String: [JournalEntry]] {
        try await (inner as? any RecoverableJournal)?.entries(sessionIds: sessionIds) ?? [:]
    }

    private func measure(_ write: () async throws -> Void) async throws {
        let start = DispatchTime.now().uptimeNanoseconds
        do {
            try await write()
            metrics.journalWrite(.ok, nanoseconds: DispatchTime.now().uptimeNanoseconds &- start)
        } catch {
            let fenced = if case JournalFailure.fenced? = error as? JournalFailure { true } else { false }
            metrics.journalWrite(fenced ? .fenced : .failed, nanoseconds: DispatchTime.now().uptimeNanoseconds &- start)
            throw error
        }
    }
}
