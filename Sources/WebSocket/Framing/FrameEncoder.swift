import NIOCore

/// Writes frames (RFC 6455 §5.2). Server frames are never masked; client frames always are.
///
/// When a payload buffer has enough headroom before its reader index (every message the
/// connection delivers has 14 bytes), the header is written there and no bytes are copied; a
/// frame encoded once can be written to any number of connections without further allocation.
/// When the headroom already holds exactly the header needed (the connection writes the header of
/// an unchanged, unfragmented reply into each message it delivers), the buffer is not written to
/// at all, so a shared buffer is sent without a copy-on-write.
public enum FrameEncoder {
    /// Appends the encoded header to `buffer`.
    public static func writeHeader(_ header: FrameHeader, into buffer: inout ByteBuffer) {
        buffer.reserveCapacity(minimumWritableBytes: header.encodedLength)
        let index = buffer.writerIndex
        let written = setHeader(header, in: &buffer, at: index)
        buffer.moveWriterIndex(forwardBy: written)
    }

    /// Writes the header at `index` and returns its length; the bytes must be writable.
    /// Writes whole words (one or two `setInteger` calls, each with its own uniqueness and
    /// capacity check) rather than a byte at a time.
    @discardableResult
    static func setHeader(_ header: FrameHeader, in buffer: inout ByteBuffer, at index: Int) -> Int {
        let b0 = UInt16(firstByte(of: header))
        let maskBit: UInt16 = header.maskKey == nil ? 0 : 0x80
        var position = index
        let length = header.payloadLength
        if length < 126 {
            buffer.setInteger(b0 << 8 | maskBit | UInt16(length), at: position)
            position += 2
        } else if length <= 0xFFFF {
            let word = UInt32(b0 << 8 | maskBit | 126) << 16 | UInt32(length)
            buffer.setInteger(word, at: position)
            position += 4
        } else {
            buffer.setInteger(b0 << 8 | maskBit | 127, at: position)
            buffer.setInteger(UInt64(length), at: position + 2)
            position += 10
        }
        if let key = header.maskKey {
            let word = UInt32(key.b0) << 24 | UInt32(key.b1) << 16 | UInt32(key.b2) << 8 | UInt32(key.b3)
            buffer.setInteger(word, at: position)
            position += 4
        }
        return position - index
    }

    /// FIN, RSV1-3 and the opcode, as the first byte of a frame.
    private static func firstByte(of header: FrameHeader) -> UInt8 {
        var b0 = header.opcode.rawValue
        if header.fin { b0 |= 0x80 }
        if header.rsv1 { b0 |= 0x40 }
        if header.rsv2 { b0 |= 0x20 }
        if header.rsv3 { b0 |= 0x10 }
        return b0
    }

    /// Whether the bytes at `index` (readable in `buffer`) are exactly the encoding of `header`.
    static func holdsHeader(_ header: FrameHeader, in buffer: ByteBuffer, at index: Int) -> Bool {
        guard header.maskKey == nil, let first = buffer.getInteger(at: index, as: UInt16.self) else { return false }
        let b0 = UInt16(firstByte(of: header))
        let length = header.payloadLength
        if length < 126 { return first == b0 << 8 | UInt16(length) }
        if length <= 0xFFFF {
            return first == b0 << 8 | 126 && buffer.getInteger(at: index + 2, as: UInt16.self) == UInt16(length)
        }
        return first == b0 << 8 | 127 && buffer.getInteger(at: index + 2, as: UInt64.self) == UInt64(length)
    }

    /// Writes into the headroom of `payload`, when it has room, the header of a final unmasked
    /// frame of type `opcode` carrying exactly its readable bytes. The readable bytes and the
    /// indices do not change. ``serverFrame(opcode:payload:fin:rsv1:allocator:)`` then finds the
    /// header in place and leaves the buffer untouched: sending the buffer unchanged later (an
    /// echo, a relay) costs no copy even while other references to it are alive.
    public static func prepareServerHeader(opcode: WebSocketOpcode, in payload: inout ByteBuffer) {
        let header = FrameHeader(opcode: opcode, payloadLength: payload.readableBytes)
        let headerLength = header.encodedLength
        guard payload.readerIndex >= headerLength else { return }
        // Written as readable bytes, so that even a copy-on-write (the buffer shared after all)
        // keeps header and payload together.
        payload.moveReaderIndex(to: payload.readerIndex - headerLength)
        setHeader(header, in: &payload, at: payload.readerIndex)
        payload.moveReaderIndex(forwardBy: headerLength)
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
            // Only write when the header is not already there: writing to a buffer that is
            // shared (the caller still holds the message) would copy it.
            if !holdsHeader(header, in: frame, at: frame.readerIndex) {
                setHeader(header, in: &frame, at: frame.readerIndex)
            }
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
