/// What the nodes of a cluster share about sessions: which node owns each open session, which
/// open session has which join code, and where each user's one seat is. The hub asks it only for
/// what is not in its own registry, so a single node (``SingleNodeDirectory``) never waits on it.
///
/// The storage layer implements it on PostgreSQL next to the journal (whose writes are fenced
/// by the same ownership).
public protocol SessionDirectory: Sendable {
    /// This node.
    var local: NodeLocation { get }

    /// Lists a new session as owned by this node, with its join code. Returns false, listing
    /// nothing, when an open session of the cluster already has that join code (the hub then
    /// draws another).
    func register(_ header: SessionHeader) async throws -> Bool

    /// The open session with this join code (already normalized), anywhere in the cluster.
    func locate(joinCode: String) async throws -> SessionPlacement?

    /// The open session with this id, anywhere in the cluster (nil when it is not open).
    func locate(sessionId: String) async throws -> SessionPlacement?

    /// The open session where `userId` holds a seat, anywhere in the cluster.
    func seat(of userId: String) async throws -> SessionPlacement?

    /// Records that `userId` holds a seat in `sessionId`. Returns nil when recorded (or already
    /// recorded for that session); returns the other session when the user already holds a seat
    /// in another open session of the cluster (nothing is recorded then).
    func reserveSeat(userId: String, sessionId: String) async throws -> SessionPlacement?

    /// `userId` no longer holds a seat in `sessionId`.
    func releaseSeat(userId: String, sessionId: String) async throws
}
