import NIOCore
import SessionHubSync
import WebSocket

/// Compresses a broadcast once for every recipient that negotiated permessage-deflate (RFC 7692).
///
/// This works because the server always answers `server_no_context_takeover`: each compressed
/// message stands alone, so the same bytes are valid on every connection whose negotiated server
/// window is 15 bits (the common case; others get the uncompressed frame). Deflaters are pooled
/// and reused, so a broadcast costs one `deflate` call, not one per member.
public final class BroadcastCompressor: Sendable {
    private let settings: PerMessageDeflateConfiguration
    private let pool = LockedValue<[Deflater]>([])

    /// A pooled zlib stream; only ever used by the thread that took it from the pool.
    private final class Deflater: @unchecked Sendable {
        let deflater: MessageDeflater
        init(_ deflater: MessageDeflater) { self.deflater = deflater }
    }

    /// Creates a compressor using the server's deflate settings (level, memory level, minimum size).
    public init(settings: PerMessageDeflateConfiguration) {
        self.settings = settings
    }

    /// The compressed payload of `payload` (raw DEFLATE, sync-flushed, tail removed), with 14 bytes
    /// of headroom for the frame header; nil when the payload is below the minimum size or
    /// compression is off or fails.
    public func compress(_ payload: ByteBuffer, allocator: ByteBufferAllocator = ByteBufferAllocator()) -> ByteBuffer? {
        guard settings.isEnabled, payload.readableBytes >= settings.minimumCompressedSize else { return nil }
        let taken = pool.withLock { $0.popLast() }
        let deflater: Deflater
        if let taken {
            deflater = taken
        } else {
            guard let made = try? MessageDeflater(windowBits: 15, noContextTakeover: true,
                                                  level: settings.compressionLevel, memoryLevel: settings.memoryLevel) else { return nil }
            deflater = Deflater(made)
        }
        var output = allocator.buffer(capacity: 14 + payload.readableBytes / 2 + 16)
        output.moveWriterIndex(forwardBy: 14)
        output.moveReaderIndex(forwardBy: 14)
        deflater.deflater.compress(payload, into: &output)
        pool.withLock { if $0.count < 8 { $0.append(deflater) } }
        // Not worth it when it does not shrink the message.
        return output.readableBytes < payload.readableBytes ? output : nil
    }
}
