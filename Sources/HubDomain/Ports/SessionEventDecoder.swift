/// Reads back a broadcast from the text an ``EncodedEvent`` gave the journal
/// (``EncodedEvent/journalText``): the wire-protocol layer's inverse of its
/// ``SessionEventEncoder``, used by journals when sessions are rebuilt after a restart or adopted
/// by another node.
public protocol SessionEventDecoder: Sendable {
    /// The event `text` encodes.
    /// - Throws: when `text` is not a broadcast this decoder reads.
    func decode(_ text: [UInt8]) throws -> SessionEvent
}
