/// Random 128-bit resume tokens that are only ever valid in the process that issued them.
public struct RandomResumeTokens: ResumeTokenIssuer {
    /// Creates the issuer.
    public init() {}

    /// 32 random hex digits.
    public func issue(sessionId: String, userId: String) -> String { SecureToken.hex128() }

    /// Always false: nothing vouches for a token from before a restart.
    public func verify(_ token: String, sessionId: String, userId: String) -> Bool { false }
}
