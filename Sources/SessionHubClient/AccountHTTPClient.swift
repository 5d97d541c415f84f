import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import WebSocketTransport

/// One HTTP/1.1 `GET` of the hub's account API (docs/API.md) on the host and port of the hub's
/// WebSocket URL (`https` when it is `wss`), with the player's token as `Authorization: Bearer`:
/// a fresh connection per call, `Connection: close`, the answer read whole up to
/// ``maxResponseBytes``. Errors use the API's shape
/// (`{"code": …, "message": …}`) and become ``SessionHubClientError/refused(code:message:retryAfter:)``.
struct AccountHTTPClient: Sendable {
    /// The largest answer body read; a longer one fails the call.
    static let maxResponseBytes = 1 << 20

    let url: WebSocketURL
    let tls: TLSConfiguration
    let timeout: Duration

    /// The JSON body of `GET path` decoded as `T`.
    func get<T: Decodable>(_ path: String, token: String, as _: T.Type) async throws -> T {
        let (status, body) = try await fetch(path, token: token)
        guard status == 200 else {
            if let error = try? JSONDecoder().decode(APIErrorBody.self, from: body) {
                throw SessionHubClientError.refused(code: error.code, message: error.message, retryAfter: nil)
            }
            throw SessionHubClientError.transport("GET \(path) answered HTTP \(status)")
        }
        do {
            return try JSONDecoder().decode(T.self, from: body)
        } catch {
            throw SessionHubClientError.transport("GET \(path): the hub's answer was not understood (\(error))")
        }
    }

    /// The API's error body (`{"error": true, "code", "message", "details"}`), as far as read.
    private struct APIErrorBody: Decodable {
        let code: String
        let message: String
    }

    /// The status and body of `GET path`.
    func fetch(_ path: String, token: String) async throws -> (status: Int, body: Data) {
        let group = MultiThreadedEventLoopGroup.singleton
        let eventLoop = group.next()
        let context: NIOSSLContext?
        if url.isSecure {
            do {
                context = try NIOSSLContext(configuration: tls)
            } catch {
                throw SessionHubClientError.transport("TLS: \(error)")
            }
        } else {
            context = nil
        }
        // SNI only for names, not for IP addresses.
        let isAddress = url.host.contains(":") || url.host.allSatisfy { $0.isNumber || $0 == "." }
        let serverName = isAddress ? nil : url.host
        let promise = eventLoop.makePromise(of: (Int, Data).self)
        let connectTimeout = TimeAmount.nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000
                                                    + timeout.components.attoseconds / 1_000_000_000)
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: eventLoop)
                .connectTimeout(connectTimeout)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let sync = channel.pipeline.syncOperations
                        if let context { try sync.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverName)) }
                        try sync.addHTTPClientHandlers()
                        try sync.addHandler(ResponseCollector(promise: promise, limit: Self.maxResponseBytes))
                    }
                }
                .connect(host: url.host, port: url.port)
                .get()
        } catch {
            promise.fail(error)
            throw SessionHubClientError.transport("GET \(path): could not connect to \(url.hostHeader) (\(error))")
        }
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: url.hostHeader)
        headers.add(name: "Authorization", value: "Bearer \(token)")
        headers.add(name: "Accept", value: "application/json")
        headers.add(name: "Connection", value: "close")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        let deadline = eventLoop.scheduleTask(in: connectTimeout) {
            promise.fail(SessionHubClientError.timedOut(request: "GET \(path)"))
            channel.close(promise: nil)
        }
        defer { deadline.cancel() }
        do {
            let (status, body) = try await promise.futureResult.get()
            channel.close(promise: nil)
            return (status, body)
        } catch let error as SessionHubClientError {
            throw error
        } catch {
            throw SessionHubClientError.transport("GET \(path): \(error)")
        }
    }
}

/// Reads one HTTP response into a promise (status and body), up to a size limit.
private final class ResponseCollector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let promise: EventLoopPromise<(Int, Data)>
    private let limit: Int
    private var status = 0
    private var body = Data()
    private var done = false

    init(promise: EventLoopPromise<(Int, Data)>, limit: Int) {
        self.promise = promise
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
        case .body(let buffer):
            guard body.count + buffer.readableBytes <= limit else {
                finish(.failure(SessionHubClientError.transport("the hub's answer is larger than \(limit) bytes")), context)
                return
            }
            body.append(contentsOf: buffer.readableBytesView)
        case .end:
            finish(.success((status, body)), context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(.failure(SessionHubClientError.connectionClosed(code: nil, reason: "before the whole answer")), context)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(.failure(error), context)
    }

    private func finish(_ result: Result<(Int, Data), any Error>, _ context: ChannelHandlerContext) {
        guard !done else { return }
        done = true
        promise.completeWith(result)
        context.close(promise: nil)
    }
}
