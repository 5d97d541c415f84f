import HubDomain
import Synchronization

/// The "wire bytes" of a broadcast in tests: the envelope itself. A class, so a test can check
/// that every member was handed the very same encoded value (encode once, write to everyone).
final class TestEncodedEvent: EncodedEvent {
    let envelope: SessionEnvelope

    init(_ envelope: SessionEnvelope) { self.envelope = envelope }

    var seq: Int { envelope.seq }
    var event: SessionEvent { envelope.event }
}

/// Wraps each envelope and counts how many times it was asked to encode.
final class TestEncoder: SessionEventEncoder {
    private let encoded = Mutex<[SessionEnvelope]>([])

    init() {}

    func encode(_ envelope: SessionEnvelope) -> any EncodedEvent {
        encoded.withLock { $0.append(envelope) }
        return TestEncodedEvent(envelope)
    }

    /// Every envelope encoded so far, in call order.
    var envelopes: [SessionEnvelope] { encoded.withLock { $0 } }

    /// The envelopes of one session.
    func envelopes(of sessionId: String) -> [SessionEnvelope] { envelopes.filter { $0.sessionId == sessionId } }
}
