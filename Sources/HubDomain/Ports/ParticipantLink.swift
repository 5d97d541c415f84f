/// The way a session reaches one connected participant. The server implements it over a
/// WebSocket; tests implement it with an array. Calls arrive in order from the session actor
/// and must not block (queue and return).
public protocol ParticipantLink: AnyObject, Sendable {
    /// Identifies this link (one per connection), so a stale disconnect is told from a fresh one.
    var linkId: UInt64 { get }
    /// A broadcast, in `seq` order.
    func deliver(_ event: any EncodedEvent)
    /// Consecutive broadcasts, in `seq` order, made durable together: a transport may write
    /// them in one go (the default delivers them one by one).
    func deliver(contentsOf events: [any EncodedEvent])
    /// A message for this participant only (the answer to join or resume), sent before any
    /// broadcast that follows it.
    func reply(_ reply: SessionReply)
    /// The session lets go of this link: it was replaced by a newer connection of the same
    /// user, the participant was removed, or the session ended. The connection stays open.
    func detach(_ reason: DetachReason)
    /// Called before the session seats this link (start, host, join, resume), with the executor the session
    /// runs on: a transport may move the connection next to it, so that the session's writes to
    /// it and its requests to the session need no thread switch. Nothing is delivered to the
    /// link until this returns. The default does nothing.
    func settle(near executor: any SerialExecutor) async
}

extension ParticipantLink {
    public func settle(near executor: any SerialExecutor) async {}

    public func deliver(contentsOf events: [any EncodedEvent]) {
        for event in events { deliver(event) }
    }
}
