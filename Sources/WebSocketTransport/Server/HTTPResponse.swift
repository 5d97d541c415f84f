import NIOCore
import NIOHTTP1

/// A plain HTTP response.
public struct HTTPResponse: Sendable {
    /// Status code.
    public var status: HTTPResponseStatus
    /// Headers (Content-Length is set when the response is written).
    public var headers: HTTPHeaders
    /// Body.
    public var body: ByteBuffer

    /// Creates a response.
    public init(status: HTTPResponseStatus, headers: HTTPHeaders = HTTPHeaders(), body: ByteBuffer = ByteBuffer()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A `text/plain; charset=utf-8` response.
    public static func text(_ status: HTTPResponseStatus, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: ByteBuffer(string: text))
    }

    /// An `application/json` response whose body is already encoded.
    public static func json(_ status: HTTPResponseStatus, _ body: ByteBuffer) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }
}
