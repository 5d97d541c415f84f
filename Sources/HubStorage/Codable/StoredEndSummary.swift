import HubDomain

/// The JSON form of a ``HubDomain/SessionEndSummary``; history results are written as
/// `"success"`, `"featureLocked"` or `"networkError"`.
struct StoredEndSummary: Codable, Sendable, Equatable {
    var cause: EndCause
    var endedAt: Int64
    var durationSeconds: Int
    var goalReached: Bool
    var participants: [ParticipantStats]
    var history: [String: String]
    var ref: String?

    init(_ summary: SessionEndSummary) {
        cause = summary.cause
        endedAt = summary.endedAt
        durationSeconds = summary.durationSeconds
        goalReached = summary.goalReached
        participants = summary.participants
        history = summary.history.mapValues { result in
            switch result {
            case .success: "success"
            case .error(let failure): failure.rawValue
            }
        }
        ref = summary.ref
    }

    /// The domain value; throws on an unknown history result.
    func summary() throws -> SessionEndSummary {
        var results: [String: HistoryWriteResult] = [:]
        for (userId, text) in history {
            if text == "success" {
                results[userId] = .success
            } else if let failure = HistorySaveFailure(rawValue: text) {
                results[userId] = .error(failure)
            } else {
                throw StorageError("journal: unknown history result \(text)")
            }
        }
        return SessionEndSummary(cause: cause, endedAt: endedAt, durationSeconds: durationSeconds,
                                 goalReached: goalReached, participants: participants, history: results, ref: ref)
    }
}
