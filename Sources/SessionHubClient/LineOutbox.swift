import HubDomain

/// The lines a client said that the hub has not acknowledged yet, in the order they were said,
/// each under the `clientId` that makes sending it again safe (docs/PROTOCOL.md, section 13: the
/// hub refuses a repeat with `duplicate_line` instead of recording it twice).
///
/// A line leaves the outbox when the speaker's own copy of it arrives (matched by `clientId`,
/// whether live or in a resume's replay), or when the hub refuses it. After a resume, the lines
/// still in the outbox are sent again, in order.
struct LineOutbox<Waiter> {
    struct Line {
        let clientId: String
        let text: String
        let translation: String
        let waiter: Waiter
        /// The request id of its latest send; nil until sent (said while reconnecting).
        var requestId: String?
    }

    private(set) var lines: [Line] = []

    var isEmpty: Bool { lines.isEmpty }

    mutating func add(clientId: String, text: String, translation: String, waiter: Waiter) {
        lines.append(Line(clientId: clientId, text: text, translation: translation, waiter: waiter, requestId: nil))
    }

    /// Notes that the line `clientId` was sent under `requestId`.
    mutating func sent(_ clientId: String, as requestId: String) {
        if let index = lines.firstIndex(where: { $0.clientId == clientId }) { lines[index].requestId = requestId }
    }

    /// Takes the line `clientId` out (acknowledged), if it is there.
    mutating func take(clientId: String) -> Line? {
        guard let index = lines.firstIndex(where: { $0.clientId == clientId }) else { return nil }
        return lines.remove(at: index)
    }

    /// Takes the line last sent under `requestId` out (refused), if it is there.
    mutating func take(requestId: String) -> Line? {
        guard let index = lines.firstIndex(where: { $0.requestId == requestId }) else { return nil }
        return lines.remove(at: index)
    }

    /// Empties the outbox: every line, for the caller to fail.
    mutating func removeAll() -> [Line] {
        defer { lines = [] }
        return lines
    }
}
