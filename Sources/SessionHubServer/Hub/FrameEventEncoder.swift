import Dispatch
import HubDomain
import HubProtocol
import WebSocketTransport

/// Encodes a broadcast to JSON and frames it once (``PreparedBroadcast``), compressed once too
/// when the server negotiates permessage-deflate.
struct FrameEventEncoder: SessionEventEncoder {
    let compressor: BroadcastCompressor?

    func encode(_ envelope: SessionEnvelope) -> any EncodedEvent {
        PreparedBroadcast(frame: PreparedFrame(utf8: ServerMessageEncoder.broadcastUTF8(envelope), compressor: compressor),
                          type: ServerMessageType(envelope.event), acceptedAt: DispatchTime.now().uptimeNanoseconds)
    }
}
