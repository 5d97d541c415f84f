import NIOCore
import WebSocket

/// A server frame encoded once and written as-is to any number of connections: the broadcast
/// path's unit. Writing it costs no copy and no allocation per recipient.
public struct PreparedFrame: Sendable {
    /// The complete frame (header and unmasked payload).
    public let bytes: ByteBuffer
    /// The same message as one compressed frame (RSV1 set), made once by a
    /// ``BroadcastCompressor``; written instead of ``bytes`` to connections that negotiated
    /// permessage-deflate with a 15-bit server window. Nil when not compressed.
    public let compressedBytes: ByteBuffer?

    /// Encodes `message` as a single unmasked, uncompressed frame.
    public init(_ message: WebSocketMessage, allocator: ByteBufferAllocator = ByteBufferAllocator()) {
        switch message {
        case .text(let payload):
            bytes = FrameEncoder.serverFrame(opcode: .text, payload: payload, allocator: allocator)
        case .binary(let payload):
            bytes = FrameEncoder.serverFrame(opcode: .binary, payload: payload, allocator: allocator)
        }
        compressedBytes = nil
    }

    /// Encodes UTF-8 `text` as a text frame, reserving the header room up front (one allocation),
    /// and, given a `compressor`, also as one compressed frame for every deflate recipient.
    public init(text: String, compressor: BroadcastCompressor? = nil, allocator: ByteBufferAllocator = ByteBufferAllocator()) {
        var payload = allocator.buffer(capacity: 14 + text.utf8.count)
        payload.moveWriterIndex(forwardBy: 14)
        payload.moveReaderIndex(forwardBy: 14)
        payload.writeString(text)
        if let compressed = compressor?.compress(payload, allocator: allocator) {
            compressedBytes = FrameEncoder.serverFrame(opcode: .text, payload: compressed, rsv1: true, allocator: allocator)
        } else {
            compressedBytes = nil
        }
        bytes = FrameEncoder.serverFrame(opcode: .text, payload: consume payload, allocator: allocator)
    }
}
