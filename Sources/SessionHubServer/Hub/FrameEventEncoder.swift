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
                          type: Self.type(of: envelope.event), acceptedAt: DispatchTime.now().uptimeNanoseconds)
    }

    /// The wire `type` of a broadcast.
    static func type(of event: SessionEvent) -> String {
        switch event {
        case .participants: "participants"
        case .line: "line"
        case .recast: "recast"
        case .recastAccepted: "recastAccepted"
        case .hostChanged: "hostChanged"
        case .stats: "stats"
        case .ended: "ended"
        }
    }
}
