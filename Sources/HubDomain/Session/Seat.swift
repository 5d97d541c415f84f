/// A participant's place in a live session: identity, connection and running counters.
/// Kept after the participant leaves, so the end summary and history include everyone.
struct Seat: Sendable {
    var user: HubUser
    var roleName: String
    var mode: SessionMode
    var joinedAt: Int64
    /// The token issued last; nil for a seat rebuilt after a restart, which accepts any token
    /// the ``ResumeTokenIssuer`` vouches for.
    var resumeToken: String?
    /// The token the last accepted `resume` presented. It still opens the seat while the seat
    /// has no connection: the answer carrying ``resumeToken`` may have been lost with the
    /// connection it went to, and the player would otherwise be locked out of their own seat.
    /// Once ``resumeToken`` is presented it takes this place; a `join` clears it.
    var presentedResumeToken: String?
    /// The connection, while connected.
    var link: (any ParticipantLink)?
    /// Set while disconnected: the seat is released at this time (epoch ms).
    var graceDeadline: Int64?
    /// False once the participant left, was removed or their grace window expired.
    var present = true
    /// Broadcasts with a lower seq are already in what this participant was given.
    var deliverFrom = 0
    /// Words the user had met in the scenario's language before this session; set it with
    /// ``know(_:amid:)``.
    var knownWords: Set<String>
    /// How many of the session's words are not in ``knownWords``: kept up to date as lines
    /// come in (``meet(_:)``), so the live figures need no set difference per tick.
    var newVocabulary = 0

    var linesSpoken = 0
    var recastsReceived = 0
    var recastsAccepted = 0
    var recastsGiven = 0
    var recastsGivenAccepted = 0
    var weakSpots: [RecastIssueType: Int] = [:]

    var isConnected: Bool { present && link != nil }

    /// Replaces what the user knew before the session; `sessionWords` are the words spoken so far.
    mutating func know(_ words: Set<String>, amid sessionWords: SessionWords) {
        knownWords = words
        newVocabulary = sessionWords.count - sessionWords.countKnown(words)
    }

    /// Counts `words`, new to the session, that the user did not know.
    mutating func meet(_ words: [String]) {
        for word in words where !knownWords.contains(word) { newVocabulary += 1 }
    }
}
