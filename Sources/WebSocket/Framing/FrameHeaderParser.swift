import NIOCore

/// Reads and validates one frame header (RFC 6455 §5.2) from the front of a buffer.
///
/// Everything decidable from the header alone is checked here, before any payload is buffered:
/// reserved opcodes, RSV bits no extension claimed, control frame rules (§5.5), the masking rule
/// for the role (§5.1), non-minimal length encodings and a set top bit in 64-bit lengths (§5.2),
/// and the frame size limit.
public struct FrameHeaderParser: Sendable {
    /// The outcome of one attempt.
    public enum Outcome: Sendable, Equatable {
        /// Not enough bytes yet; nothing was consumed.
        case needMoreData
        /// A complete, valid header; its bytes were consumed from the buffer.
        case header(FrameHeader)
        /// The header breaks a rule; the connection must fail with this error.
        case invalid(WebSocketProtocolError)
    }

    /// The role of the endpoint that receives these frames.
    public var role: WebSocketRole
    /// Whether RSV1 may be set on a message's first frame (permessage-deflate negotiated).
    public var allowsCompression: Bool
    /// The largest payload a frame may announce.
    public var maxFrameSize: Int

    /// Creates a parser.
    public init(role: WebSocketRole, allowsCompression: Bool, maxFrameSize: Int) {
        self.role = role
        self.allowsCompression = allowsCompression
        self.maxFrameSize = maxFrameSize
    }

    /// Parses a header at the reader index of `buffer`, consuming it only when complete and valid.
    public func parse(_ buffer: inout ByteBuffer) -> Outcome {
        let start = buffer.readerIndex
        guard let b0 = buffer.getInteger(at: start, as: UInt8.self),
              let b1 = buffer.getInteger(at: start + 1, as: UInt8.self)
        else { return .needMoreData }

        let fin = b0 & 0x80 != 0
        let rsv1 = b0 & 0x40 != 0
        let rsv2 = b0 & 0x20 != 0
        let rsv3 = b0 & 0x10 != 0
        guard let opcode = WebSocketOpcode(rawValue: b0 & 0x0F) else {
            return .invalid(.protocolViolation("reserved opcode \(b0 & 0x0F)"))
        }
        if rsv2 || rsv3 {
            return .invalid(.protocolViolation("reserved bit set"))
        }
        if rsv1 && !(allowsCompression && (opcode == .text || opcode == .binary)) {
            return .invalid(.protocolViolation(allowsCompression ? "RSV1 on a non-initial or control frame" : "reserved bit set"))
        }
        let masked = b1 & 0x80 != 0
        switch role {
        case .server where !masked:
            return .invalid(.protocolViolation("client frame not masked"))
        case .client where masked:
            return .invalid(.protocolViolation("server frame masked"))
        default:
            break
        }
        let shortLength = Int(b1 & 0x7F)
        if opcode.isControl {
            if !fin { return .invalid(.protocolViolation("fragmented control frame")) }
            if shortLength > 125 { return .invalid(.protocolViolation("control frame payload over 125 bytes")) }
        }

        var offset = start + 2
        let length: Int
        switch shortLength {
        case 126:
            guard let value = buffer.getInteger(at: offset, as: UInt16.self) else { return .needMoreData }
            guard value >= 126 else { return .invalid(.protocolViolation("non-minimal length encoding")) }
            length = Int(value)
            offset += 2
        case 127:
            guard let value = buffer.getInteger(at: offset, as: UInt64.self) else { return .needMoreData }
            guard value & (1 << 63) == 0 else { return .invalid(.protocolViolation("64-bit length with top bit set")) }
            guard value > 0xFFFF else { return .invalid(.protocolViolation("non-minimal length encoding")) }
            // Checked before any conversion, so a length past Int's range can never overflow.
            guard value <= UInt64(maxFrameSize) else {
                return .invalid(.messageTooLarge("frame of \(value) bytes exceeds limit \(maxFrameSize)"))
            }
            length = Int(value)
            offset += 8
        default:
            length = shortLength
        }
        guard length <= maxFrameSize else {
            return .invalid(.messageTooLarge("frame of \(length) bytes exceeds limit \(maxFrameSize)"))
        }

        var key: WebSocketMaskKey?
        if masked {
            guard let k0 = buffer.getInteger(at: offset, as: UInt8.self),
                  let k1 = buffer.getInteger(at: offset + 1, as: UInt8.self),
                  let k2 = buffer.getInteger(at: offset + 2, as: UInt8.self),
                  let k3 = buffer.getInteger(at: offset + 3, as: UInt8.self)
            else { return .needMoreData }
            key = WebSocketMaskKey(k0, k1, k2, k3)
            offset += 4
        }
        buffer.moveReaderIndex(to: offset)
        return .header(FrameHeader(fin: fin, rsv1: rsv1, rsv2: rsv2, rsv3: rsv3, opcode: opcode,
                                   maskKey: key, payloadLength: length))
    }
}
