/// Answers plain HTTP requests (health checks, APIs) on the WebSocket server's port.
public protocol HTTPResponder: Sendable {
    /// Produces the response for `request`. Called in a task, off the event loop.
    func respond(to request: HTTPRequest) async -> HTTPResponse
}

/// A responder that answers 404 to everything.
public struct NotFoundResponder: HTTPResponder {
    /// Creates it.
    public init() {}
    /// Always 404.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        .text(.notFound, "not found\n")
    }
}
