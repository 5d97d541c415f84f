/// A broadcast already turned into wire bytes by a ``SessionEventEncoder``. The domain never
/// looks inside: it hands the same value to every member's ``ParticipantLink`` (encode once,
/// write the same bytes to everyone), keeps it for replay on resume, and gives its
/// ``journalText`` to the journal.
public protocol EncodedEvent: Sendable {
    /// The message exactly as members receive it (UTF-8 text), which the journal stores instead
    /// of encoding the event a second time; read back with a ``SessionEventDecoder``. Nil when
    /// the encoder has no text form: the journal then encodes the event itself.
    var journalText: [UInt8]? { get }
}

extension EncodedEvent {
    /// No text form by default.
    public var journalText: [UInt8]? { nil }
}
