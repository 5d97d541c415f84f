/// Turns a session broadcast into wire bytes, once per broadcast. Supplied by the wire-protocol
/// layer; the domain only stores and forwards the result.
public protocol SessionEventEncoder: Sendable {
    /// Encodes one broadcast.
    func encode(_ envelope: SessionEnvelope) -> any EncodedEvent
}
