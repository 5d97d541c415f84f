/// What a journal records when a session opens: with the session's entries, enough to rebuild
/// it after a crash (``Hub/recover(from:)``).
public struct SessionHeader: Codable, Sendable, Equatable {
    /// Session id (32 hex digits).
    public var sessionId: String
    /// The scenario played; it must still be in the catalogue for the session to be rebuilt.
    public var scenarioId: String
    /// The join code of a shared session; nil for SOLO.
    public var joinCode: String?
    /// Seats offered.
    public var maxPlayers: Int
    /// Epoch ms when the session was created.
    public var startedAt: Int64

    /// Creates a header.
    public init(sessionId: String, scenarioId: String, joinCode: String?, maxPlayers: Int, startedAt: Int64) {
        self.sessionId = sessionId
        self.scenarioId = scenarioId
        self.joinCode = joinCode
        self.maxPlayers = maxPlayers
        self.startedAt = startedAt
    }
}
