/// Receives every ended session and stores it in each premium participant's history.
/// The storage layer implements it; ``InMemoryHistoryWriter`` keeps sessions in memory.
public protocol HistoryWriter: Sendable {
    /// Saves the session for its participants; answers per user id.
    func save(_ session: EndedSession) async -> [String: HistoryWriteResult]

    /// Whether ``save(_:)`` also records every participant's ``EndedParticipant/newWords`` as
    /// known words in the session's language, in the same write as the history (a retried
    /// write records them then). An ending session then does not call
    /// ``LearnerRecords/recordWords(_:language:)``: one durable write per ended session instead
    /// of two. `false` unless a writer says otherwise.
    var recordsNewWords: Bool { get }
}

extension HistoryWriter {
    public var recordsNewWords: Bool { false }
}
