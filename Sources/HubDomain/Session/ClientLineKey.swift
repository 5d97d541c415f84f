/// A line as its speaker's client named it (`say.clientId`): unique per speaker within a session.
struct ClientLineKey: Hashable, Sendable {
    /// The speaker's user id.
    var speakerId: String
    /// The id the client chose.
    var clientId: String
}
