import HubDomain
import NIOCore

/// What a connection's worker processes, in arrival order.
enum ConnectionInput: Sendable {
    /// The connection opened with a valid token on the upgrade: authenticate as its claims.
    case upgradeAuthenticated(TokenClaims)
    /// A text message from the client: its bytes, valid UTF-8 (the transport checked them).
    case text(ByteBuffer)
    /// The session joined as membership `generation` let go of this connection.
    case detached(generation: Int, reason: DetachReason)
    /// The time to authenticate ran out.
    case authTimeout
    /// The connection's expiry timer fired (its token's `exp`, unless renewed since).
    case tokenExpired
    /// The connection is gone: the last input; the seat goes into its grace window.
    case closed
}
