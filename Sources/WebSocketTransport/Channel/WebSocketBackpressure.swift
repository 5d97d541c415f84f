/// How much a slow reader may cost before it is disconnected.
///
/// While the channel is writable, writes go straight to the socket. Once the kernel buffer and
/// NIO's queue pass the high watermark the channel turns unwritable: the connection stops reading
/// (so a client that does not read cannot make the server buffer its echoes), and every further
/// byte queued counts against `maxQueuedBytes`. Past that the peer is closed with 1008
/// ("slow consumer"), so one slow member never holds the others' memory or delays them.
public struct WebSocketBackpressure: Sendable, Hashable {
    /// NIO's low write-buffer watermark. Default 32 KiB.
    public var lowWatermark: Int
    /// NIO's high write-buffer watermark. Default 256 KiB.
    public var highWatermark: Int
    /// Bytes that may be queued while unwritable before disconnecting. Default 4 MiB.
    public var maxQueuedBytes: Int

    /// Creates a policy.
    public init(lowWatermark: Int = 32 * 1024, highWatermark: Int = 256 * 1024, maxQueuedBytes: Int = 4 << 20) {
        self.lowWatermark = max(1, lowWatermark)
        self.highWatermark = max(self.lowWatermark + 1, highWatermark)
        self.maxQueuedBytes = max(0, maxQueuedBytes)
    }

    /// The defaults.
    public static let `default` = WebSocketBackpressure()
}
