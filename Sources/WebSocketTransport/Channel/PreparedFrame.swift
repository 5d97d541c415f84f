import NIOCore
import SessionHubSync
import WebSocket

/// A server frame encoded once and written as-is to any number of connections: the broadcast
/// path's unit. Writing it costs no copy and no allocation per recipient.
public struct PreparedFrame: Sendable {
    /// The complete frame (header and unmasked payload).
    public let bytes: ByteBuffer
    private let deflated: DeflatedVariant?

    /// The same message as one compressed frame (RSV1 set), made by a ``BroadcastCompressor``
    /// the first time a recipient that negotiated permessage-deflate (15-bit server window) asks
    /// for it, then shared by all of them; nil when not compressed (no compressor, a message too
    /// short to gain, or compression off). A broadcast no deflate member receives is never
    /// compressed.
    public var compressedBytes: ByteBuffer? { deflated?.frame() }

    /// The uncompressed payload: a view of ``bytes`` without the frame header (no copy).
    public var payload: ByteBuffer { Self.payloadSlice(of: bytes) ?? ByteBuffer() }

    /// Encodes `message` as a single unmasked, uncompressed frame.
    public init(_ message: WebSocketMessage, allocator: ByteBufferAllocator = ByteBufferAllocator()) {
        switch message {
        case .text(let payload):
            bytes = FrameEncoder.serverFrame(opcode: .text, payload: payload, allocator: allocator)
        case .binary(let payload):
            bytes = FrameEncoder.serverFrame(opcode: .binary, payload: payload, allocator: allocator)
        }
        deflated = nil
    }

    /// Encodes UTF-8 `text` as a text frame, reserving the header room up front (one allocation),
    /// and, given a `compressor`, keeps what it needs to make the compressed frame on demand.
    public init(text: String, compressor: BroadcastCompressor? = nil, allocator: ByteBufferAllocator = ByteBufferAllocator()) {
        var payload = allocator.buffer(capacity: 14 + text.utf8.count)
        payload.moveWriterIndex(forwardBy: 14)
        payload.moveReaderIndex(forwardBy: 14)
        payload.writeString(text)
        self.init(textPayload: payload, compressor: compressor, allocator: allocator)
    }

    /// A text frame of `utf8`, which must be valid UTF-8 (as a JSON writer's output is).
    public init(utf8: [UInt8], compressor: BroadcastCompressor? = nil, allocator: ByteBufferAllocator = ByteBufferAllocator()) {
        var payload = allocator.buffer(capacity: 14 + utf8.count)
        payload.moveWriterIndex(forwardBy: 14)
        payload.moveReaderIndex(forwardBy: 14)
        payload.writeBytes(utf8)
        self.init(textPayload: payload, compressor: compressor, allocator: allocator)
    }

    /// Frames a text payload that has 14 bytes of room before its reader index.
    private init(textPayload payload: consuming ByteBuffer, compressor: BroadcastCompressor?, allocator: ByteBufferAllocator) {
        let frame = FrameEncoder.serverFrame(opcode: .text, payload: consume payload, allocator: allocator)
        bytes = frame
        // The payload as a slice of the frame's storage (no copy); only read if compressed.
        deflated = compressor.flatMap { compressor in
            Self.payloadSlice(of: frame).map { DeflatedVariant(payload: $0, compressor: compressor, allocator: allocator) }
        }
    }

    /// The payload of an unmasked server frame, without its 2-, 4- or 10-byte header.
    private static func payloadSlice(of frame: ByteBuffer) -> ByteBuffer? {
        guard let second = frame.getInteger(at: frame.readerIndex + 1, as: UInt8.self) else { return nil }
        let header = switch second & 0x7F {
        case 126: 4
        case 127: 10
        default: 2
        }
        return frame.getSlice(at: frame.readerIndex + header, length: frame.readableBytes - header)
    }
}

/// The compressed frame of a ``PreparedFrame``, made at most once, by whichever recipient asks first.
private final class DeflatedVariant: Sendable {
    private enum State: @unchecked Sendable {
        case pending(ByteBuffer)
        case done(ByteBuffer?)
    }

    private let state: LockedValue<State>
    private let compressor: BroadcastCompressor
    private let allocator: ByteBufferAllocator

    init(payload: ByteBuffer, compressor: BroadcastCompressor, allocator: ByteBufferAllocator) {
        state = LockedValue(.pending(payload))
        self.compressor = compressor
        self.allocator = allocator
    }

    func frame() -> ByteBuffer? {
        state.withLock { state in
            switch state {
            case .done(let frame):
                return frame
            case .pending(let payload):
                let frame = compressor.compress(payload, allocator: allocator).map {
                    FrameEncoder.serverFrame(opcode: .text, payload: $0, rsv1: true, allocator: allocator)
                }
                state = .done(frame)
                return frame
            }
        }
    }
}
