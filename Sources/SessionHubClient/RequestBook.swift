import HubProtocol

/// The requests waiting for their answer, each under its own id, and the rule that matches a
/// message from the hub to one of them (docs/PROTOCOL.md, section 5).
///
/// A reply to one connection (`joined`, `pong`, `error`, …) answers the request its `ref`
/// names. A broadcast answers a request only when it is the client's own: everyone sees the
/// `ref` of the member who caused a broadcast, so a `line` answers a `say` only if its speaker
/// is this user (likewise `recast` and `recastAccepted`); `ended` answers an `end`.
struct RequestBook<Waiter> {
    /// What a request waits for.
    enum Answer: String, Sendable {
        case welcome, joined, resumed, scenarios, pong, left, line, recast, recastAccepted, ended
    }

    private var waiting: [String: (answer: Answer, waiter: Waiter)] = [:]

    var count: Int { waiting.count }

    mutating func add(id: String, answer: Answer, waiter: Waiter) {
        waiting[id] = (answer, waiter)
    }

    /// Removes the request `id` (timed out or cancelled), if it still waits.
    mutating func remove(id: String) -> Waiter? {
        waiting.removeValue(forKey: id)?.waiter
    }

    /// The request `message` answers, if any, removed from the book, with the outcome: the
    /// message, or the refusal of an `error`.
    mutating func answer(_ message: ServerMessage, userId: String?) -> (Waiter, Result<ServerMessage, SessionHubClientError>)? {
        let ref: String?, answer: Answer?
        switch message {
        case .welcome(let m): (ref, answer) = (m.ref, .welcome)
        case .joined(let m): (ref, answer) = (m.ref, .joined)
        case .resumed(let m): (ref, answer) = (m.ref, .resumed)
        case .scenarios(let m): (ref, answer) = (m.ref, .scenarios)
        case .pong(let m): (ref, answer) = (m.ref, .pong)
        case .left(let m): (ref, answer) = (m.ref, .left)
        case .line(let m): (ref, answer) = (m.ref, m.line.speakerId == userId ? .line : nil)
        case .recast(let m): (ref, answer) = (m.ref, m.recast.authorId == userId ? .recast : nil)
        case .recastAccepted(let m): (ref, answer) = (m.ref, m.userId == userId ? .recastAccepted : nil)
        case .ended(let m): (ref, answer) = (m.ref, .ended)
        case .error(let m):
            guard let ref = m.ref, let entry = waiting.removeValue(forKey: ref) else { return nil }
            return (entry.waiter, .failure(SessionHubClientError(m)))
        case .participants, .hostChanged, .stats, .other: return nil
        }
        guard let ref, let answer, let entry = waiting[ref], entry.answer == answer else { return nil }
        waiting[ref] = nil
        return (entry.waiter, .success(message))
    }

    /// Empties the book (the connection closed): every waiter, for the caller to fail.
    mutating func removeAll() -> [Waiter] {
        defer { waiting = [:] }
        return waiting.values.map(\.waiter)
    }
}
