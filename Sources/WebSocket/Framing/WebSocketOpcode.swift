/// A frame opcode (RFC 6455 §5.2).
///
/// Only the six opcodes RFC 6455 defines are representable; the reserved values
/// 0x3–0x7 and 0xB–0xF are rejected by ``FrameParser`` with close code 1002.
public enum WebSocketOpcode: UInt8, Sendable, Hashable, CaseIterable {
    /// Continues a fragmented data message.
    case continuation = 0x0
    /// Starts a text message (UTF-8).
    case text = 0x1
    /// Starts a binary message.
    case binary = 0x2
    /// Close control frame.
    case close = 0x8
    /// Ping control frame.
    case ping = 0x9
    /// Pong control frame.
    case pong = 0xA

    /// Whether this is a control opcode (close, ping, pong): never fragmented, payload ≤ 125 bytes.
    @inlinable
    public var isControl: Bool { rawValue & 0x8 != 0 }
}
