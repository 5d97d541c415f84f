import NIOCore
import WebSocketTransport

/// The hub's plain HTTP routes: health, and the JSON API when a store is configured.
struct HubHTTPResponder: HTTPResponder {
    let api: HubAPI?

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        if let api, request.path.hasPrefix("/api/") || request.path.hasPrefix("/admin/") {
            return await api.respond(to: request)
        }
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
