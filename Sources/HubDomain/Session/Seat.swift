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
    /// The connection, while connected.
    var link: (any ParticipantLink)?
    /// Set while disconnected: the seat is released at this time (epoch ms).
    var graceDeadline: Int64?
    /// False once the participant left, was removed or their grace window expired.
    var present = true
    /// Broadcasts with a lower seq are already in what this participant was given.
    var deliverFrom = 0
    /// Words the user had met in the scenario's language before this session.
    var knownWords: Set<String>

    var linesSpoken = 0
    var recastsReceived = 0
    var recastsAccepted = 0
    var recastsGiven = 0
    var recastsGivenAccepted = 0
    var weakSpots: [RecastIssueType: Int] = [:]

    var isConnected: Bool { present && link != nil }
}
