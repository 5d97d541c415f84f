import Foundation
import HubDomain
import HubProtocol

/// The bot's user interface on standard output: a readable live transcript (who says what in
/// which role, recasts and acceptances, presence changes), then everyone's final figures.
///
/// Every player of the run receives each broadcast; the printer shows a broadcast the first time
/// any player receives it (by `seq`). With `--json` the transcript is off and only
/// ``emit(json:)`` writes, so standard output holds exactly one JSON object.
final class TranscriptPrinter: @unchecked Sendable {
    private let live: Bool
    private let lock = NSLock()
    private var shownSeqs: Set<Int> = []

    /// A printer; `live` false keeps the transcript quiet (JSON mode).
    init(live: Bool) {
        self.live = live
    }

    /// One line of commentary (`· bot-2 joined …`), in transcript mode only.
    func note(_ text: String) {
        guard live else { return }
        write(text + "\n")
    }

    /// A broadcast, the first time any player receives it.
    func show(_ message: ServerMessage) {
        guard live, let seq = message.seq, let text = Self.describe(message) else { return }
        let fresh = lock.withLock { shownSeqs.insert(seq).inserted }
        guard fresh else { return }
        let tag = "#\(seq)".padding(toLength: 5, withPad: " ", startingAt: 0)
        write(text.split(separator: "\n", omittingEmptySubsequences: false)
            .enumerated()
            .map { $0.offset == 0 ? tag + $0.element : String(repeating: " ", count: 5) + $0.element }
            .joined(separator: "\n") + "\n")
    }

    /// The JSON summary: one line on standard output.
    func emit(json: Data) {
        var data = json
        data.append(0x0A)
        lock.withLock { FileHandle.standardOutput.write(data) }
    }

    /// A failure message on standard error (both modes).
    func complain(_ text: String) {
        lock.withLock { FileHandle.standardError.write(Data(("sessionhub-bot: " + text + "\n").utf8)) }
    }

    private func write(_ text: String) {
        lock.withLock { FileHandle.standardOutput.write(Data(text.utf8)) }
    }

    /// The transcript text of a broadcast; nil for those not shown (`stats`).
    private static func describe(_ message: ServerMessage) -> String? {
        switch message {
        case .line(let m):
            let line = m.line
            var text = "\(line.speakerId) (\(line.roleName)): \(line.textNative)"
            if !line.textTranslated.isEmpty { text += "\n    “\(line.textTranslated)”" }
            return text
        case .recast(let m):
            let recast = m.recast
            let types = recast.issueTypes.map(\.rawValue).joined(separator: ", ")
            var text = "  ↳ \(recast.authorId) recasts \(recast.lineId) of \(recast.speakerId) as \(recast.id) [\(types)]: \(recast.correctedText)"
            if let explanation = recast.explanation { text += "\n      (\(explanation))" }
            return text
        case .recastAccepted(let m):
            return "  ✓ \(m.userId) accepts \(m.recastId) (\(m.lineId))"
        case .participants(let m):
            let connected = m.participants.filter(\.connected).count
            let role = m.participants.first { $0.userId == m.change.userId }.map { " as \($0.roleName)" } ?? ""
            return "· \(m.change.userId) \(m.change.kind.rawValue)\(m.change.kind == .joined ? role : "")"
                + " — \(m.participants.count) present, \(connected) connected"
        case .hostChanged(let m):
            return "· \(m.userId) is the host now"
        case .ended(let m):
            return "■ session ended: \(m.cause.rawValue) after \(m.durationSeconds) s\(m.goalReached ? " (goal reached)" : "")"
        case .stats, .welcome, .joined, .resumed, .scenarios, .pong, .left, .error, .other:
            return nil
        }
    }
}
