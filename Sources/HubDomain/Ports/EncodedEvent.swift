/// A broadcast already turned into wire bytes by a ``SessionEventEncoder``. The domain never
/// looks inside: it hands the same value to every member's ``ParticipantLink`` (encode once,
/// write the same bytes to everyone) and keeps it for replay on resume.
public protocol EncodedEvent: Sendable {}
