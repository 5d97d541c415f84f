import NIOCore

/// A complete data message, as an application sends or receives it.
public enum WebSocketMessage: Sendable, Equatable {
    /// A text message; the bytes are valid UTF-8.
    case text(ByteBuffer)
    /// A binary message.
    case binary(ByteBuffer)

    /// A text message holding `string`.
    public static func text(_ string: String) -> WebSocketMessage { .text(ByteBuffer(string: string)) }

    /// The message's bytes.
    public var buffer: ByteBuffer {
        switch self {
        case .text(let buffer), .binary(let buffer): return buffer
        }
    }

    /// The message as a string (binary bytes decoded leniently).
    public var string: String { String(buffer: buffer) }
}
