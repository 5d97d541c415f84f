import Foundation
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
    /// The client's IP address as the connection limits count it: the peer's, or the last
    /// `X-Forwarded-For` hop when the peer is a trusted proxy. Nil when unknown.
    public var clientAddress: String?

    /// Creates a request.
    public init(head: HTTPRequestHead, body: ByteBuffer = ByteBuffer(), remoteAddress: SocketAddress? = nil,
                clientAddress: String? = nil) {
        self.head = head
        self.body = body
        self.remoteAddress = remoteAddress
        self.clientAddress = clientAddress ?? remoteAddress?.ipAddress
    }

    /// The path without the query.
    public var path: String {
        let uri = head.uri
        if let mark = uri.firstIndex(of: "?") { return String(uri[..<mark]) }
        return uri
    }

    /// The first query parameter called `name`, percent-decoded (`+` stays a plus sign); nil
    /// when absent or malformed.
    public func query(_ name: String) -> String? {
        let uri = head.uri
        guard let mark = uri.firstIndex(of: "?") else { return nil }
        for item in uri[uri.index(after: mark)...].split(separator: "&") {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = parts.first.flatMap({ String($0).removingPercentEncoding }), key == name else { continue }
            return parts.count > 1 ? String(parts[1]).removingPercentEncoding : ""
        }
        return nil
    }

    /// The bearer token of the `Authorization` header, if any.
    public var bearerToken: String? {
        guard let header = head.headers.first(name: "Authorization") else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }
}
