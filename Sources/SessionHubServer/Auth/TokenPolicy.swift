/// The time rules every bearer token is checked against (``TokenAuthority/verify(_:now:)``),
/// on `/ws`, the account API, the operator API and the dashboard feed alike.
public struct TokenPolicy: Sendable, Equatable {
    /// How far in the future a token's `iat` may lie (clocks of the issuer and the hub differ a
    /// little), seconds. Later is refused as `token_not_yet_valid`. Default 60.
    public var maxClockSkewSeconds = 60
    /// Longest lifetime a token may claim, `exp - iat`, seconds. Longer is refused as
    /// `token_lifetime`. Default 7 days (`sessionhub token --ttl` defaults to one day).
    public var maxLifetimeSeconds = 7 * 86_400

    /// The defaults.
    public init() {}
}
