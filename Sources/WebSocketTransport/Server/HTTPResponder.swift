import NIOHTTP1

/// Answers plain HTTP requests (health checks, APIs) on the WebSocket server's port.
public protocol HTTPResponder: Sendable {
    /// Produces the response for `request`. Called in a task, off the event loop.
    func respond(to request: HTTPRequest) async -> HTTPResponse

    /// The largest body the route of `head` accepts, in bytes; a larger one is refused with 413
    /// (from `Content-Length` before any of it is read, or as soon as a chunked body passes it).
    /// nil: the server's ``WebSocketServerConfiguration/maxHTTPBodySize``, which also caps any
    /// value returned here. Called on the event loop when the head arrives; must not block.
    func bodyLimit(for head: HTTPRequestHead) -> Int?
}

extension HTTPResponder {
    /// Default: the server's limit for every route.
    public func bodyLimit(for head: HTTPRequestHead) -> Int? { nil }
}

