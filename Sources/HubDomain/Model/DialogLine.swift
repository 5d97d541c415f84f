/// One spoken line of a session's transcript, field for field the SDK's `DialogLine`.
public struct DialogLine: Codable, Sendable, Equatable {
    /// Server-assigned id, unique within the session (`l1`, `l2`, ...).
    public var id: String
    /// The speaker's user id.
    public var speakerId: String
    /// The role the speaker plays in the scenario.
    public var roleName: String
    /// The line in the language being practised.
    public var textNative: String
    /// Its translation.
    public var textTranslated: String
    /// Server time when the line was accepted, epoch milliseconds.
    public var timestamp: Int64
    /// The id the speaker's client chose for this line (`say.clientId`), so that a line sent again
    /// after a failover is recognised instead of recorded twice; nil when the client sent none.
    /// Not part of the SDK's model; absent from JSON when nil.
    public var clientId: String?

    /// Creates a line.
    public init(id: String, speakerId: String, roleName: String, textNative: String, textTranslated: String, timestamp: Int64,
                clientId: String? = nil) {
        self.id = id
        self.clientId = clientId
        self.speakerId = speakerId
        self.roleName = roleName
        self.textNative = textNative
        self.textTranslated = textTranslated
        self.timestamp = timestamp
    }
}
