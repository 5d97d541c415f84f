import NIOHTTP1

/// A responder that answers 404 to everything.
public struct NotFoundResponder: HTTPResponder {
    /// Creates it.
    public init() {}
    /// Always 404.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        .text(.notFound, "not found\n")
    }
}
