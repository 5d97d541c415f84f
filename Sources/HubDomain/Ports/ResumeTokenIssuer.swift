/// Issues the resume tokens that let a player take their seat back on a new connection.
///
/// While the hub runs, a seat accepts only the token it issued last. After a restart the seats
/// rebuilt from the journal have no token in memory, so they accept any token that
/// ``verify(_:sessionId:userId:)`` vouches for: a signing issuer (the server's HMAC one) keeps
/// players' tokens valid across a crash; ``RandomResumeTokens`` does not.
public protocol ResumeTokenIssuer: Sendable {
    /// A new, unguessable token for `userId`'s seat in `sessionId`.
    func issue(sessionId: String, userId: String) -> String

    /// Whether `token` was issued by this issuer for that seat.
    func verify(_ token: String, sessionId: String, userId: String) -> Bool
}
