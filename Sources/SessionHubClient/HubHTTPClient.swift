import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import WebSocketTransport

/// A small HTTP/1.1 client for the hub's JSON account API (`/api/…`, docs/API.md): same host
/// and port as the hub's WebSocket URL, `https` when that is `wss://` (with the same TLS
/// settings), `Authorization: Bearer` with a fresh token from the provider on every request.
///
/// ```swift
/// let http = try HubHTTPClient(url: "wss://hub.example/ws") { try await myBackend.hubToken() }
/// let answer = try await http.get("/api/history?full=1")
/// if answer.status == 200 { … answer.body … } else { throw answer.refusal }
/// ```
///
/// One connection per request (`Connection: close`): the account API is called now and then,
/// not in a loop. Calls throw ``SessionHubClientError/transport(_:)`` when the hub cannot be
/// reached or its answer is not HTTP, and ``SessionHubClientError/timedOut(request:)`` when no
/// whole answer came in ``timeout``; any answer, error statuses included, is returned.
public struct HubHTTPClient: Sendable {
    /// Returns a current token for the hub (called on every request).
    public typealias TokenProvider = @Sendable () async throws -> String

    /// An answer of the hub.
    public struct Response: Sendable, Equatable {
        /// The HTTP status code.
        public var status: Int
        /// The body (JSON for every `/api/` answer but 204).
        public var body: Data
        /// `Retry-After`, in seconds, when the hub sent one.
        public var retryAfter: Int?

        /// Creates an answer.
        public init(status: Int, body: Data, retryAfter: Int? = nil) {
            self.status = status
            self.body = body
            self.retryAfter = retryAfter
        }

        /// 2xx.
        public var isSuccess: Bool { (200..<300).contains(status) }

        /// The `code` of the API's error shape (`{"error":true,"code":…,"message":…}`), if the
        /// body is one.
        public var errorCode: String? { errorBody?.code }

        /// The answer as ``SessionHubClientError/refused(code:message:retryAfter:)``: the error
        /// shape's code and message (or `http_<status>` when the body is not that shape).
        public var refusal: SessionHubClientError {
            let error = errorBody
            return .refused(code: error?.code ?? "http_\(status)", message: error?.message ?? "HTTP \(status)",
                            retryAfter: retryAfter)
        }

        private var errorBody: (code: String, message: String)? {
            struct Shape: Decodable {
                let error: Bool
                let code: String
                let message: String?
            }
            guard let shape = try? JSONDecoder().decode(Shape.self, from: body), shape.error else { return nil }
            return (shape.code, shape.message ?? "")
        }
    }

    /// How long a request may take, connecting included (the token provider's own time aside). Default 10 s.
    public var timeout: Duration
    /// Largest answer body read; a larger one fails the call. Default 32 MiB.
    public var maxResponseBytes = 32 << 20

    private let host: String
    private let port: Int
    private let hostHeader: String
    private let tls: NIOSSLContext?
    private let token: TokenProvider

    /// A client for the hub whose WebSocket URL is `url` (`wss://host[:port]/…` or `ws://…`);
    /// the path of `url` does not matter (the API is at the root).
    /// - Parameters:
    ///   - tls: for `wss://`: trust roots and verification (default: the system's roots, full
    ///     certificate and host-name checks).
    ///   - timeout: how long a request may take.
    ///   - token: called for a token on every request.
    /// - Throws: ``SessionHubClientError/transport(_:)`` when `url` is not a WebSocket URL or the
    ///   TLS settings are unusable.
    public init(url: String, tls: TLSConfiguration = .makeClientConfiguration(), timeout: Duration = .seconds(10),
                token: @escaping TokenProvider) throws(SessionHubClientError) {
        let parsed: WebSocketURL
        do {
            parsed = try WebSocketURL(parsing: url)
        } catch {
            throw .transport("not a WebSocket URL: \(url) (\(error))")
        }
        try self.init(url: parsed, tls: tls, timeout: timeout, token: token)
    }

    init(url: WebSocketURL, tls: TLSConfiguration, timeout: Duration, token: @escaping TokenProvider) throws(SessionHubClientError) {
        host = url.host
        port = url.port
        hostHeader = url.hostHeader
        self.timeout = timeout
        self.token = token
        if url.isSecure {
            do {
                self.tls = try NIOSSLContext(configuration: tls)
            } catch {
                throw .transport("unusable TLS settings: \(error)")
            }
        } else {
            self.tls = nil
        }
    }

    /// `GET path` (path and query, e.g. `/api/history?full=1`).
    public func get(_ path: String) async throws -> Response {
        try await send(.GET, path, body: nil)
    }

    /// The JSON body of `GET path` decoded as `T`.
    /// - Throws: the answer's ``Response/refusal`` when it is not 2xx;
    ///   ``SessionHubClientError/transport(_:)`` when the body is not a `T`, or for what
    ///   ``get(_:)`` throws.
    public func get<T: Decodable>(_ path: String, as _: T.Type) async throws -> T {
        let response = try await get(path)
        guard response.isSuccess else { throw response.refusal }
        do {
            return try JSONDecoder().decode(T.self, from: response.body)
        } catch {
            throw SessionHubClientError.transport("GET \(path): the hub's answer was not understood (\(error))")
        }
    }

    /// `POST path` with a JSON body.
    public func post(_ path: String, json body: Data) async throws -> Response {
        try await send(.POST, path, body: body)
    }

    /// `PUT path` with a JSON body.
    public func put(_ path: String, json body: Data) async throws -> Response {
        try await send(.PUT, path, body: body)
    }

    /// `DELETE path`.
    public func delete(_ path: String) async throws -> Response {
        try await send(.DELETE, path, body: nil)
    }

    /// One request on a connection of its own.
    private func send(_ method: HTTPMethod, _ path: String, body: Data?) async throws -> Response {
        let bearer: String
        do {
            bearer = try await token()
        } catch {
            throw SessionHubClientError.transport("no token: \(error)")
        }
        guard !path.utf8.contains(where: { $0 < 0x21 || $0 == 0x7F }) else {
            throw SessionHubClientError.transport("the path \(path.debugDescription) holds a space or control character")
        }
        var requestHead = HTTPRequestHead(version: .http1_1, method: method, uri: path.hasPrefix("/") ? path : "/" + path)
        requestHead.headers.add(name: "Host", value: hostHeader)
        requestHead.headers.add(name: "Authorization", value: "Bearer \(bearer)")
        requestHead.headers.add(name: "Accept", value: "application/json")
        requestHead.headers.add(name: "Connection", value: "close")
        if let body {
            requestHead.headers.add(name: "Content-Type", value: "application/json")
            requestHead.headers.add(name: "Content-Length", value: String(body.count))
        } else if method == .POST || method == .PUT {
            requestHead.headers.add(name: "Content-Length", value: "0")
        }
        let request = "\(method) \(path)"
        let head = requestHead
        // One deadline for connecting and the exchange together (the token provider's time aside).
        let deadline = ContinuousClock.now + timeout
        let channel = try await connect()
        let limit = maxResponseBytes
        return try await withThrowingTaskGroup(of: Response?.self) { group in
            group.addTask {
                do {
                    return try await Self.exchange(on: channel, head: head, body: body, limit: limit, request: request)
                } catch let error as SessionHubClientError {
                    throw error
                } catch {
                    throw SessionHubClientError.transport("\(request) failed: \(error)")
                }
            }
            group.addTask {
                try await Task.sleep(until: deadline)
                channel.channel.close(promise: nil)
                return nil
            }
            defer { group.cancelAll() }
            do {
                guard let first = try await group.next(), let response = first else {
                    throw SessionHubClientError.timedOut(request: request)
                }
                return response
            } catch where ContinuousClock.now >= deadline {
                // The timer closed the connection under the exchange: a timeout, not a transport failure.
                throw SessionHubClientError.timedOut(request: request)
            }
        }
    }

    /// Writes the request in one go and reads the answer. The hub may answer and close before
    /// it has read everything (a refusal from the head alone): the answer counts, not the
    /// failed write.
    private static func exchange(on channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>,
                                 head: HTTPRequestHead, body: Data?, limit: Int, request: String) async throws -> Response {
        try await channel.executeThenClose { inbound, outbound in
            var parts: [HTTPClientRequestPart] = [.head(head)]
            if let body { parts.append(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
            parts.append(.end(nil))
            var writeFailure: (any Error)?
            do {
                try await outbound.write(contentsOf: parts)
            } catch {
                writeFailure = error
            }
            var status = 0
            var retryAfter: Int?
            var received = ByteBuffer()
            for try await part in inbound {
                switch part {
                case .head(let head):
                    status = Int(head.status.code)
                    retryAfter = head.headers.first(name: "Retry-After").flatMap { Int($0) }
                case .body(var chunk):
                    guard received.readableBytes + chunk.readableBytes <= limit else {
                        throw SessionHubClientError.transport("the answer to \(request) is larger than \(limit) bytes")
                    }
                    received.writeBuffer(&chunk)
                case .end:
                    return Response(status: status, body: Data(received.readableBytesView), retryAfter: retryAfter)
                }
            }
            throw writeFailure ?? SessionHubClientError.transport("the hub closed the connection before answering \(request)")
        }
    }

    private func connect() async throws -> NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart> {
        let tls = self.tls
        let serverName = (try? SocketAddress(ipAddress: host, port: 0)) != nil ? nil : host
        let (seconds, attoseconds) = timeout.components
        do {
            return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let sync = channel.pipeline.syncOperations
                        if let tls { try sync.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName)) }
                        try sync.addHTTPClientHandlers()
                        return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw SessionHubClientError.transport("cannot connect to \(hostHeader): \(error)")
        }
    }
}
