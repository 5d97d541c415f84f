import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// One HTTP/1.1 request to another node of the cluster at its internal URL (`http://host:port`,
/// `--internal-url`), on a connection of its own that is closed after the answer: what the
/// operator routes use to reach the node that owns a session. Bounded in time (connect and
/// answer) and in the size of the answer.
struct PeerClient: Sendable {
    /// A peer's answer.
    struct Answer: Sendable {
        var status: HTTPResponseStatus
        var headers: HTTPHeaders
        var body: ByteBuffer
    }

    /// Why a request to a peer failed.
    enum Failure: Error, CustomStringConvertible, Equatable {
        /// The internal URL is not `http://host[:port]`.
        case badURL(String)
        /// No answer within the time allowed.
        case timedOut
        /// The answer was larger than ``maxBodyBytes``.
        case tooLarge
        /// The connection closed before a whole answer.
        case closed

        var description: String {
            switch self {
            case .badURL(let url): return "internal URL \(url.prefix(200)) is not http://host[:port]"
            case .timedOut: return "no answer in time"
            case .tooLarge: return "answer too large"
            case .closed: return "connection closed before the answer"
            }
        }
    }

    let group: any EventLoopGroup
    /// Connect and answer, together.
    var timeout: TimeAmount = .seconds(2)
    /// Largest answer body accepted.
    var maxBodyBytes = 4 << 20

    /// Sends `method path` with `headers` (and `body`) to the node at `baseURL`.
    func send(_ method: HTTPMethod, _ path: String, to baseURL: String, headers: HTTPHeaders,
              body: ByteBuffer? = nil) async throws -> Answer {
        let (host, port) = try Self.hostAndPort(baseURL)
        let promise = group.next().makePromise(of: Answer.self)
        let limit = maxBodyBytes
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(AnswerCollector(promise: promise, limit: limit))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: host, port: port).get()
        } catch {
            promise.fail(error)
            throw error
        }
        let deadline = channel.eventLoop.scheduleTask(in: timeout) {
            promise.fail(Failure.timedOut)
            channel.close(promise: nil)
        }
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: path, headers: headers)
        head.headers.replaceOrAdd(name: "Host", value: port == 80 ? host : "\(host):\(port)")
        head.headers.replaceOrAdd(name: "Connection", value: "close")
        head.headers.replaceOrAdd(name: "Content-Length", value: "\(body?.readableBytes ?? 0)")
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        if let body, body.readableBytes > 0 { channel.write(HTTPClientRequestPart.body(.byteBuffer(body)), promise: nil) }
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        defer {
            deadline.cancel()
            channel.close(promise: nil)
        }
        return try await promise.futureResult.get()
    }

    /// `http://host[:port][/]` → host and port (80 by default).
    static func hostAndPort(_ url: String) throws(Failure) -> (String, Int) {
        guard url.hasPrefix("http://") else { throw .badURL(url) }
        var rest = Substring(url.dropFirst("http://".count))
        while rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty, !rest.contains("/"), !rest.contains("@") else { throw .badURL(url) }
        if rest.hasPrefix("[") {
            // [v6]:port
            guard let close = rest.firstIndex(of: "]") else { throw .badURL(url) }
            let host = String(rest[rest.index(after: rest.startIndex)..<close])
            let tail = rest[rest.index(after: close)...]
            if tail.isEmpty { return (host, 80) }
            guard tail.hasPrefix(":"), let port = Int(tail.dropFirst()), (1...65535).contains(port) else { throw .badURL(url) }
            return (host, port)
        }
        let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
        switch parts.count {
        case 1: return (String(parts[0]), 80)
        case 2:
            guard !parts[0].isEmpty, let port = Int(parts[1]), (1...65535).contains(port) else { throw .badURL(url) }
            return (String(parts[0]), port)
        default: throw .badURL(url)
        }
    }
}

/// Gathers one HTTP response into the promise (or fails it).
private final class AnswerCollector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let promise: EventLoopPromise<PeerClient.Answer>
    private let limit: Int
    private var head: HTTPResponseHead?
    private var body = ByteBuffer()

    init(promise: EventLoopPromise<PeerClient.Answer>, limit: Int) {
        self.promise = promise
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body(var chunk):
            guard body.readableBytes + chunk.readableBytes <= limit else {
                promise.fail(PeerClient.Failure.tooLarge)
                context.close(promise: nil)
                return
            }
            body.writeBuffer(&chunk)
        case .end:
            if let head { promise.succeed(PeerClient.Answer(status: head.status, headers: head.headers, body: body)) }
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(PeerClient.Failure.closed)
        context.fireChannelInactive()
    }
}
