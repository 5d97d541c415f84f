import HubProtocol
import SessionHubClient

/// What a seat's ``SeatFlow`` (both players', ``SessionPlayer`` and ``ClientSessionPlayer``) keeps
/// and counts: the `seq` check of the session's broadcasts (lost, duplicated and foreign ones go
/// into the loop's recorder), the lines the seat speaks (its role's hints, each translation tagged
/// with its send time and speaker), and a line's tag read back. Touched on the player's loop only.
struct SeatLedger {
    /// A line's `[lt:<send ns>:<speaker index>:<n>]` tag.
    struct Tag {
        var sentAt: UInt64
        var speaker: Int
    }

    /// Broadcasts missing on this connection, over the run.
    private(set) var lost = 0
    /// Broadcasts that came twice on this connection, over the run.
    private(set) var duplicated = 0
    private var tracker = SeqTracker()
    private var hints: [(String, String)] = [("Bonjour", "Hello")]
    private var lineNumber = 0

    /// A session was joined: its broadcasts continue after the snapshot's `seq`, and the seat
    /// speaks its role's hints (every hint when the role has none).
    mutating func joined(_ session: JoinedSession) {
        tracker = SeqTracker(after: session.seq)
        hints = session.hints
    }

    /// Checks the next broadcast's `seq`; true when it is new (a gap counts the missing ones as
    /// lost and still takes it).
    mutating func track(_ seq: Int, into recorder: Recorder) -> Bool {
        switch tracker.record(seq) {
        case .next:
            return true
        case .gap(let expected, let received):
            lost += received - expected
            recorder.lost += received - expected
            return true
        case .duplicate:
            duplicated += 1
            recorder.duplicated += 1
            return false
        case .beforeSnapshot:
            recorder.foreign += 1
            return false
        }
    }

    /// The next line to say, tagged for `speaker` with the time now; its request number.
    ///
    /// The tag goes on the translation, not on the line itself: the hub counts the words of
    /// `textNative` as the session's vocabulary (and, at the end, writes a review row per player
    /// and word), so a tag there would make every line bring three never-seen "words" — a
    /// vocabulary no real conversation has, and a history write the load test would mostly be
    /// measuring.
    mutating func nextLine(speaker: Int) -> (text: String, translation: String, number: Int) {
        lineNumber += 1
        let hint = hints[lineNumber % hints.count]
        return (hint.0, "\(hint.1) [lt:\(monotonicNanos()):\(speaker):\(lineNumber)]", lineNumber)
    }

    /// The tag in a line's translation (``nextLine(speaker:)``).
    static func tag(in text: String) -> Tag? {
        guard let range = text.range(of: "[lt:") else { return nil }
        let parts = text[range.upperBound...].split(separator: ":")
        guard parts.count >= 2, let sent = UInt64(parts[0]), let speaker = Int(parts[1]) else { return nil }
        return Tag(sentAt: sent, speaker: speaker)
    }
}
