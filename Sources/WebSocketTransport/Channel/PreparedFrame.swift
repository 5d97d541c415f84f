import NIOCore
import WebSocket

/// A server frame encoded once and written as-is to any number of connections: the broadcast
/// path's unit. Writing it costs no copy and no allocation per recipient.
public struct PreparedFrame: Sendable {
    /// The complete frame (header and unmasked payload).
    public let bytes: ByteBuffer

    /// Encodes `message` as a single unmasked, uncompressed frame.
    public init(_ message: WebSocketMessage, allocator: ByteBufferAllocator = ByteBufferAllocator()) {
        switch message {
        case .text(let payload):
            bytes = FrameEncoder.serverFrame(opcode: .text, payload: payload, allocator: allocator)
        case .binary(let payload):
            bytes = FrameEncoder.serverFrame(opcode: .binary, payload: payload, allocator: allocator)
        }
    }

    /// Encodes UTF-8 `text` as a text frame, reserving the header room up front (one allocation).
    public init(text: String, allocator: ByteBufferAllocator = ByteBufferAllocator()) {
        var payload = allocator.buffer(capacity: 14 + text.utf8.count)
        payload.moveWriterIndex(forwardBy: 14)
        payload.moveReaderIndex(forwardBy: 14)
        payload.writeString(text)
        bytes = FrameEncoder.serverFrame(opcode: .text, payload: consume payload, allocator: allocator)
    }
}
