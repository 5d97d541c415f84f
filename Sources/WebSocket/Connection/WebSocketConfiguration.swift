/// Limits and behaviour of one protocol connection. Every limit is a hard refusal: exceeding it
/// fails the connection with the close code named on the property.
public struct WebSocketConfiguration: Sendable, Hashable {
    /// Largest message, in bytes after decompression (close 1009 beyond it). Checked from each
    /// frame's announced length before any of its payload is buffered, and step by step while
    /// inflating, so neither a huge length field nor a decompression bomb allocates past it.
    /// Default 1 MiB.
    public var maxMessageSize: Int
    /// Largest single frame payload on the wire, in bytes (close 1009). Default: `maxMessageSize`.
    public var maxFrameSize: Int
    /// Most frames one fragmented message may span (close 1009). Tiny fragments cost CPU, not
    /// memory (fragments are appended to one buffer), so this only bounds work. Default 131 072.
    public var maxFragmentsPerMessage: Int
    /// Answer every ping with a pong carrying the same payload (RFC 6455 §5.5.2). Default true.
    public var replyToPings: Bool
    /// Bytes reserved in front of every received message so the transport can prepend a frame
    /// header without copying (an echo, or a relay). Default 14, the largest header.
    public var messageHeadroom: Int

    /// Creates a configuration; every parameter has the documented default.
    public init(
        maxMessageSize: Int = 1 << 20,
        maxFrameSize: Int? = nil,
        maxFragmentsPerMessage: Int = 1 << 17,
        replyToPings: Bool = true,
        messageHeadroom: Int = 14
    ) {
        self.maxMessageSize = max(0, maxMessageSize)
        self.maxFrameSize = max(0, maxFrameSize ?? maxMessageSize)
        self.maxFragmentsPerMessage = max(1, maxFragmentsPerMessage)
        self.replyToPings = replyToPings
        self.messageHeadroom = max(0, messageHeadroom)
    }

    /// The defaults.
    public static let `default` = WebSocketConfiguration()
}
