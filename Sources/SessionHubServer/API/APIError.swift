import Foundation
import NIOCore
import NIOHTTP1
import WebSocketTransport

/// An HTTP API error in the one shape every route uses:
/// `{"error": true, "code": "feature_locked", "message": "...", "details": null}`.
struct APIError: Error {
    var status: HTTPResponseStatus
    var code: String
    var message: String
    /// Seconds after which trying again can succeed (sent as `Retry-After`).
    var retryAfter: Int?

    init(_ status: HTTPResponseStatus, _ code: String, _ message: String, retryAfter: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    static func notFound(_ what: String = "no such route") -> APIError { APIError(.notFound, "not_found", what) }
    static func badRequest(_ message: String) -> APIError { APIError(.badRequest, "bad_request", message) }
    static let featureLocked = APIError(.forbidden, "feature_locked", "history is a premium feature")

    var response: HTTPResponse {
        struct Body: Encodable {
            let error = true
            let code: String
            let message: String
            let details: String? = nil
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(error, forKey: .error)
                try container.encode(code, forKey: .code)
                try container.encode(message, forKey: .message)
                try container.encodeNil(forKey: .details)
            }
            enum CodingKeys: String, CodingKey { case error, code, message, details }
        }
        let data = (try? JSONEncoder().encode(Body(code: code, message: message))) ?? Data()
        var response = HTTPResponse.json(status, ByteBuffer(bytes: data))
        if let retryAfter { response.headers.add(name: "Retry-After", value: "\(retryAfter)") }
        return response
    }
}
