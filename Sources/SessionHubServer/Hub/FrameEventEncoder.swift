import HubDomain
import HubProtocol
import WebSocketTransport

/// Encodes a broadcast to JSON and frames it once (``PreparedBroadcast``), compressed once too
/// when the server negotiates permessage-deflate.
struct FrameEventEncoder: SessionEventEncoder {
    let compressor: BroadcastCompressor?

    func encode(_ envelope: SessionEnvelope) -> any EncodedEvent {
        PreparedBroadcast(frame: PreparedFrame(text: ServerMessageEncoder.broadcast(envelope), compressor: compressor))
    }
}
