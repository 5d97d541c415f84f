/// Limits and timings of the hub domain. Each has a default and a config key in the server.
public struct HubConfiguration: Sendable {
    /// How long a dropped player's seat is held unless configured otherwise, seconds. Clients
    /// assume it when a `welcome` does not say (`limits.graceSeconds`).
    public static let defaultGraceSeconds = 30
    /// How long a dropped player's seat is held, ms. Default ``defaultGraceSeconds``.
    public var graceWindowMillis = Int64(Self.defaultGraceSeconds) * 1000
    /// Largest `textNative` / `textTranslated` / `correctedText`, in characters. Default 500.
    public var maxTextLength = 500
    /// Largest recast `explanation`, in characters. Default 1000.
    public var maxExplanationLength = 1000
    /// Lines per session; `say` beyond it is refused. Default 1000.
    public var maxLinesPerSession = 1000
    /// Recasts per session. Default 2000.
    public var maxRecastsPerSession = 2000
    /// Upper bound for `maxPlayers` of a shared session (the scenario may allow fewer). Default 8.
    public var maxPlayersPerSession = 8
    /// Live sessions per hub. Default 10 000.
    public var maxLiveSessions = 10_000
    /// Broadcasts kept for replay on resume; older ones make a resume take a snapshot. Default 4096.
    public var replayBufferSize = 4096
    /// Join code length (alphabet of 31 unambiguous characters). Default 6 (≈ 8.9 × 10⁸ codes).
    public var joinCodeLength = 6
    /// Window in which failed joins (a code that names no live session) are counted, ms.
    /// Default 5 minutes. See ``JoinFailureLedger``.
    public var joinFailureWindowMillis: Int64 = 300_000
    /// Failed joins by one user (any connection) within the window before that user is locked
    /// out of joining. Default 10.
    public var maxJoinFailuresPerUser = 10
    /// Failed joins from one client address (any user, any connection) within the window before
    /// that address is locked out of joining. Default 30 (higher than per user: several players
    /// may share an address behind a NAT).
    public var maxJoinFailuresPerAddress = 30
    /// How long a locked-out user or address is refused every join (`join_locked`), ms.
    /// Default 15 minutes.
    public var joinLockoutMillis: Int64 = 900_000

    /// The defaults.
    public init() {}
}
