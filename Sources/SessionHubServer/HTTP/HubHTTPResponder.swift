import NIOCore
import WebSocketTransport

/// The hub's plain HTTP routes.
struct HubHTTPResponder: HTTPResponder {
    func respond(to request: HTTPRequest) async -> HTTPResponse {
        switch (request.head.method, request.path) {
        case (.GET, "/healthz"), (.HEAD, "/healthz"):
            return .json(.ok, ByteBuffer(string: #"{"status":"ok"}"#))
        case (_, "/healthz"):
            return .text(.methodNotAllowed, "method not allowed\n")
        default:
            return .json(.notFound, ByteBuffer(string: #"{"error":true,"code":"not_found","message":"no such route","details":null}"#))
        }
    }
}
