import HubDomain
import WebSocketTransport

/// A session broadcast framed once: the same bytes go to every member's socket.
struct PreparedBroadcast: EncodedEvent {
    let frame: PreparedFrame
}
