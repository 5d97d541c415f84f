// A participant's link that only counts what the session hands it (no socket).
import HubDomain
import Synchronization
import WebSocketTransport

/// A ``ParticipantLink`` that counts deliveries and their bytes, and nothing else. The server's
/// `SocketParticipantLink` would hand the frame to the connection's event loop here
/// (`WebSocketSocket.send`) and record a metric; that is left out (no sockets).
final class CountingLink: ParticipantLink {
    private static let nextId = Atomic<UInt64>(1)

    let linkId: UInt64
    /// Whether this member negotiated permessage-deflate: it then takes the broadcast's compressed
    /// frame (made once, by the first such member, and shared), as the connection would.
    let deflate: Bool

    private let deliveries = Atomic<Int>(0)
    private let compressedDeliveries = Atomic<Int>(0)
    private let bytes = Atomic<Int>(0)
    private let replies = Atomic<Int>(0)

    init(deflate: Bool) {
        self.deflate = deflate
        linkId = Self.nextId.add(1, ordering: .relaxed).oldValue
    }

    func deliver(_ event: any EncodedEvent) {
        guard let broadcast = event as? BenchBroadcast else {
            fatalError("the session delivered an event the benchmark's encoder did not make: \(event)")
        }
        var frame = broadcast.frame.bytes
        if deflate, let compressed = broadcast.frame.compressedBytes {
            frame = compressed
            compressedDeliveries.add(1, ordering: .relaxed)
        }
        deliveries.add(1, ordering: .relaxed)
        bytes.add(frame.readableBytes, ordering: .relaxed)
    }

    func reply(_ reply: SessionReply) {
        replies.add(1, ordering: .relaxed)
    }

    func detach(_ reason: DetachReason) {}

    /// Broadcasts delivered so far.
    var delivered: Int { deliveries.load(ordering: .relaxed) }
    /// Of those, how many went out as the compressed frame.
    var deliveredCompressed: Int { compressedDeliveries.load(ordering: .relaxed) }
    /// Frame bytes delivered so far.
    var deliveredBytes: Int { bytes.load(ordering: .relaxed) }
    /// Replies (`joined`) received so far.
    var replied: Int { replies.load(ordering: .relaxed) }
}
