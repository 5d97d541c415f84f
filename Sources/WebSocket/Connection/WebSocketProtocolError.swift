/// Why the connection was failed; each case maps to the close code sent to the peer.
public enum WebSocketProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A framing or state rule of RFC 6455 was broken (close 1002).
    case protocolViolation(String)
    /// A text message or close reason is not valid UTF-8 (close 1007).
    case invalidUTF8
    /// Compressed data could not be inflated (close 1007).
    case invalidCompressedData
    /// A frame or message exceeds a configured limit (close 1009).
    case messageTooLarge(String)
    /// Something failed inside this endpoint (close 1011).
    case internalError(String)

    /// The close code to send.
    public var closeCode: WebSocketCloseCode {
        switch self {
        case .protocolViolation: return .protocolError
        case .invalidUTF8, .invalidCompressedData: return .invalidPayload
        case .messageTooLarge: return .messageTooBig
        case .internalError: return .internalError
        }
    }

    /// A short reason for the close frame (ASCII, ≤ 123 bytes).
    public var reason: String {
        let text: String
        switch self {
        case .protocolViolation(let why): text = why
        case .invalidUTF8: text = "invalid UTF-8 in text"
        case .invalidCompressedData: text = "invalid compressed data"
        case .messageTooLarge(let why): text = why
        case .internalError(let why): text = why
        }
        return text.utf8.count <= 123 ? text : String(decoding: text.utf8.prefix(120), as: UTF8.self)
    }

    /// Code and reason, for logs.
    public var description: String { "\(closeCode.rawValue) \(reason)" }
}
