import HubDomain
import WebSocketTransport

/// A session broadcast framed once: the same bytes go to every member's socket.
struct PreparedBroadcast: EncodedEvent {
    let frame: PreparedFrame
    /// The broadcast's `type` (for metrics).
    let type: String
    /// Uptime (ns) when the change was accepted and encoded: fan-out latency starts here.
    let acceptedAt: UInt64
}
