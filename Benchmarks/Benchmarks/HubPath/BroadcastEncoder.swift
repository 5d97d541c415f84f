// The server's broadcast encoder, rebuilt from public API. `FrameEventEncoder` and its
// `PreparedBroadcast` are internal to `SessionHubServer`, so this is a line-for-line copy of what
// they do (Sources/SessionHubServer/Hub/FrameEventEncoder.swift, PreparedBroadcast.swift).
import Dispatch
import HubDomain
import HubProtocol
import WebSocket
import WebSocketTransport

/// A session broadcast framed once, like the server's `PreparedBroadcast`: the same bytes go to
/// every member.
struct BenchBroadcast: EncodedEvent {
    let frame: PreparedFrame
    /// The broadcast's wire `type` (the server keeps it for its metrics).
    let type: String
    /// Uptime (ns) when the change was encoded (the server's fan-out latency starts here).
    let acceptedAt: UInt64

    /// The JSON text members receive, for the journal (encoded once).
    var journalText: [UInt8]? { Array(frame.payload.readableBytesView) }
}

/// Encodes a broadcast to JSON and frames it once, as `FrameEventEncoder` does: compact JSON from
/// `ServerMessageEncoder.broadcast`, one `PreparedFrame` (header in the payload's headroom), and,
/// given a compressor, what it needs to make the compressed frame the first time a member that
/// negotiated permessage-deflate asks for it.
struct BenchBroadcastEncoder: SessionEventEncoder {
    let compressor: BroadcastCompressor?

    /// The server's encoder with compression on (the default, `compression: true`) or off.
    init(compression: Bool) {
        var deflate = PerMessageDeflateConfiguration.default
        deflate.isEnabled = compression
        compressor = compression ? BroadcastCompressor(settings: deflate) : nil
    }

    func encode(_ envelope: SessionEnvelope) -> any EncodedEvent {
        BenchBroadcast(frame: PreparedFrame(utf8: ServerMessageEncoder.broadcastUTF8(envelope), compressor: compressor),
                       type: ServerMessageType(envelope.event).rawValue, acceptedAt: DispatchTime.now().uptimeNanoseconds)
    }
}
