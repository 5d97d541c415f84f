/// A numbered broadcast of one session.
public struct SessionEnvelope: Sendable, Equatable {
    public var sessionId: String
    /// 1, 2, 3, ... per session, without gaps.
    public var seq: Int
    public var event: SessionEvent

    /// Creates an envelope.
    public init(sessionId: String, seq: Int, event: SessionEvent) {
        self.sessionId = sessionId
        self.seq = seq
        self.event = event
    }
}
