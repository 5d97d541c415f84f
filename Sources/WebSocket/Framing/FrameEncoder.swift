import NIOCore

/// Writes frames (RFC 6455 §5.2). Server frames are never masked; client frames always are.
///
/// When a payload buffer has enough headroom before its reader index (every message the
/// connection delivers has 14 bytes), the header is written there and no bytes are copied; a
/// frame encoded once can be written to any number of connections without further allocation.
public enum FrameEncoder {
    /// Appends the encoded header to `buffer`.
    public static func writeHeader(_ header: FrameHeader, into buffer: inout ByteBuffer) {
        buffer.reserveCapacity(minimumWritableBytes: header.encodedLength)
        let index = buffer.writerIndex
        let written = setHeader(header, in: &buffer, at: index)
        buffer.moveWriterIndex(forwardBy: written)
    }

    /// Writes the header at `index` and returns its length; the bytes must be writable.
    @discardableResult
    static func setHeader(_ header: FrameHeader, in buffer: inout ByteBuffer, at index: Int) -> Int {
        var b0 = header.opcode.rawValue
        if header.fin { b0 |= 0x80 }
        if header.rsv1 { b0 |= 0x40 }
        if header.rsv2 { b0 |= 0x20 }
        if header.rsv3 { b0 |= 0x10 }
        let maskBit: UInt8 = header.maskKey == nil ? 0 : 0x80
        var position = index
        buffer.setInteger(b0, at: position)
        position += 1
        let length = header.payloadLength
        if length < 126 {
            buffer.setInteger(UInt8(length) | maskBit, at: position)
            position += 1
        } else if length <= 0xFFFF {
            buffer.setInteger(126 | maskBit, at: position)
            buffer.setInteger(UInt16(length), at: position + 1)
            position += 3
        } else {
            buffer.setInteger(127 | maskBit, at: position)
            buffer.setInteger(UInt64(length), at: position + 1)
            position += 9
        }
        if let key = header.maskKey {
            buffer.setInteger(key.b0, at: position)
            buffer.setInteger(key.b1, at: position + 1)
            buffer.setInteger(key.b2, at: position + 2)
            buffer.setInteger(key.b3, at: position + 3)
            position += 4
        }
        return position - index
    }

    /// Returns a complete unmasked (server) frame carrying `payload`.
    ///
    /// Uses the payload's headroom when it has enough (no copy); otherwise allocates once.
    public static func serverFrame(
        opcode: WebSocketOpcode,
        payload: consuming ByteBuffer,
        fin: Bool = true,
        rsv1: Bool = false,
        allocator: ByteBufferAllocator = ByteBufferAllocator()
    ) -> ByteBuffer {
        // Taking the payload by `consuming` lets a caller that hands over its only reference
        // (`consume buffer`) have the header written into the headroom without a copy-on-write.
        var frame = payload
        let header = FrameHeader(fin: fin, rsv1: rsv1, opcode: opcode, payloadLength: frame.readableBytes)
        let headerLength = header.encodedLength
        if frame.readerIndex >= headerLength {
            frame.moveReaderIndex(to: frame.readerIndex - headerLength)
            setHeader(header, in: &frame, at: frame.readerIndex)
            return frame
        }
        var output = allocator.buffer(capacity: headerLength + frame.readableBytes)
        writeHeader(header, into: &output)
        output.writeBuffer(&frame)
        return output
    }

    /// Returns a complete masked (client) frame carrying `payload`, masked with `key`.
    public static func clientFrame(
        opcode: WebSocketOpcode,
        payload: ByteBuffer,
        key: WebSocketMaskKey,
        fin: Bool = true,
        rsv1: Bool = false,
        allocator: ByteBufferAllocator = ByteBufferAllocator()
    ) -> ByteBuffer {
        let header = FrameHeader(fin: fin, rsv1: rsv1, opcode: opcode, maskKey: key, payloadLength: payload.readableBytes)
        var frame = allocator.buffer(capacity: header.encodedLength + payload.readableBytes)
        writeHeader(header, into: &frame)
        let count = payload.readableBytes
        if count > 0 {
            frame.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { destination in
                payload.withUnsafeReadableBytes { source in
                    if let src = source.baseAddress, let dst = destination.baseAddress {
                        Masking.transform(key: key, phase: 0, from: src, to: dst, count: count)
                    }
                }
                return count
            }
        }
        return frame
    }

    /// A frame for `role`: masked with a fresh random key for a client, unmasked for a server.
    public static func frame(
        for role: WebSocketRole,
        opcode: WebSocketOpcode,
        payload: ByteBuffer,
        fin: Bool = true,
        rsv1: Bool = false,
        allocator: ByteBufferAllocator = ByteBufferAllocator()
    ) -> ByteBuffer {
        switch role {
        case .server:
            return serverFrame(opcode: opcode, payload: payload, fin: fin, rsv1: rsv1, allocator: allocator)
        case .client:
            return clientFrame(opcode: opcode, payload: payload, key: .random(), fin: fin, rsv1: rsv1, allocator: allocator)
        }
    }
}
