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

    /// Creates a line.
    public init(id: String, speakerId: String, roleName: String, textNative: String, textTranslated: String, timestamp: Int64) {
        self.id = id
        self.speakerId = speakerId
        self.roleName = roleName
        self.textNative = textNative
        self.textTranslated = textTranslated
        self.timestamp = timestamp
    }
}
