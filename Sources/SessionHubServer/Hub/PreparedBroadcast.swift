import HubDomain
import HubProtocol
import WebSocketTransport

/// A session broadcast framed once: the same bytes go to every member's socket.
struct PreparedBroadcast: EncodedEvent {
    let frame: PreparedFrame
    /// The broadcast's `type` (for metrics).
    let type: ServerMessageType
    /// Uptime (ns) when the change was accepted and encoded: fan-out latency starts here.
    let acceptedAt: UInt64

    /// The JSON text members receive, for the journal (encoded once).
    var journalText: [UInt8]? { Array(frame.payload.readableBytesView) }
}
