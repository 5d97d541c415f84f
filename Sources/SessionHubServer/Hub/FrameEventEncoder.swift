import HubDomain
import HubProtocol
import WebSocketTransport

/// Encodes a broadcast to JSON and frames it once (``PreparedBroadcast``).
struct FrameEventEncoder: SessionEventEncoder {
    func encode(_ envelope: SessionEnvelope) -> any EncodedEvent {
        PreparedBroadcast(frame: PreparedFrame(text: ServerMessageEncoder.broadcast(envelope)))
    }
}
