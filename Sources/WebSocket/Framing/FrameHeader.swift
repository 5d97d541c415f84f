/// The fixed part of a WebSocket frame (RFC 6455 §5.2), as read off the wire.
public struct FrameHeader: Sendable, Hashable {
    /// FIN bit: this frame ends its message.
    public var fin: Bool
    /// RSV1 bit; with permessage-deflate it marks a compressed message (RFC 7692 §6).
    public var rsv1: Bool
    /// RSV2 bit; no extension here uses it.
    public var rsv2: Bool
    /// RSV3 bit; no extension here uses it.
    public var rsv3: Bool
    /// The frame's opcode.
    public var opcode: WebSocketOpcode
    /// The masking key, present on every client-to-server frame.
    public var maskKey: WebSocketMaskKey?
    /// Payload length in bytes.
    public var payloadLength: Int

    /// Creates a header.
    public init(
        fin: Bool = true,
        rsv1: Bool = false,
        rsv2: Bool = false,
        rsv3: Bool = false,
        opcode: WebSocketOpcode,
        maskKey: WebSocketMaskKey? = nil,
        payloadLength: Int
    ) {
        self.fin = fin
        self.rsv1 = rsv1
        self.rsv2 = rsv2
        self.rsv3 = rsv3
        self.opcode = opcode
        self.maskKey = maskKey
        self.payloadLength = payloadLength
    }

    /// Bytes the encoded header takes on the wire (2 to 14).
    @inlinable
    public var encodedLength: Int {
        FrameHeader.encodedLength(payloadLength: payloadLength, masked: maskKey != nil)
    }

    /// Bytes a header takes for a payload of `payloadLength` bytes.
    @inlinable
    public static func encodedLength(payloadLength: Int, masked: Bool) -> Int {
        let lengthBytes = payloadLength < 126 ? 0 : (payloadLength <= 0xFFFF ? 2 : 8)
        return 2 + lengthBytes + (masked ? 4 : 0)
    }
}
