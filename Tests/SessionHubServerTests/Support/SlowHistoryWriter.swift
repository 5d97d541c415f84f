import HubDomain

/// A history store that takes `delay` to save: it widens the moment between a session's last
/// broadcast and its `ended` (which the hub sends once the history is saved).
struct SlowHistoryWriter: HistoryWriter {
    let delay: Duration
    let inner: any HistoryWriter = InMemoryHistoryWriter()

    func save(_ session: EndedSession) async -> [String: HistoryWriteResult] {
        try? await Task.sleep(for: delay)
        return await inner.save(session)
    }
}
