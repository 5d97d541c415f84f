import NIOCore
import NIOHTTP1

/// A complete plain HTTP request (not a WebSocket upgrade), body included.
public struct HTTPRequest: Sendable {
    /// Method, target, version and headers.
    public var head: HTTPRequestHead
    /// The body (empty for GET).
    public var body: ByteBuffer
    /// The peer's address.
    public var remoteAddress: SocketAddress?

    /// Creates a request.
    public init(head: HTTPRequestHead, body: ByteBuffer = ByteBuffer(), remoteAddress: SocketAddress? = nil) {
        self.head = head
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The path without the query.
    public var path: String {
        let uri = head.uri
        if let mark = uri.firstIndex(of: "?") { return String(uri[..<mark]) }
        return uri
    }
}
