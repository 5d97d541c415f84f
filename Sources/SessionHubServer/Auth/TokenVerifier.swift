/// Turns a bearer token into the claims the hub uses, or says why not: what `/ws`, the account
/// API, the operator API and the dashboard feed call. ``HubTokenVerifier`` is the hub's.
public protocol TokenVerifier: Sendable {
    /// Checks `token` at `now` (seconds since the epoch); cheap and synchronous.
    func verify(_ token: String, now: Int) throws(AuthError) -> TokenClaims
}

extension TokenAuthority: TokenVerifier {}
