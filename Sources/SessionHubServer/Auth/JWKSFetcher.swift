import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Fetches a JWKS over HTTP/1.1 (`https://` with the system's trust roots and host name
/// verification), one connection per fetch, closed after the answer. Bounded in time and size;
/// only a 200 answer counts.
struct JWKSFetcher: Sendable {
    let group: any EventLoopGroup
    /// Connect, TLS and answer, together.
    var timeout: TimeAmount = .seconds(10)
    /// The largest key set read, from a URL or a file: 1 MiB.
    static let maxKeySetBytes = 1 << 20
    /// Largest body accepted.
    var maxBodyBytes = Self.maxKeySetBytes
    /// TLS for `https://`: the system's trust roots, host name verified (tests add a root).
    var tls = TLSConfiguration.makeClientConfiguration()

    /// The body of `GET url`.
    func fetch(_ url: JWKSURL) async throws(JWKSError) -> [UInt8] {
        do {
            return try await get(url)
        } catch let error as JWKSError {
            throw error
        } catch {
            throw .unreadable(source: url.description, reason: "\(error)")
        }
    }

    private func get(_ url: JWKSURL) async throws -> [UInt8] {
        let promise = group.next().makePromise(of: [UInt8].self)
        let limit = maxBodyBytes
        let source = url.description
        let tls = try url.isTLS ? NIOSSLContext(configuration: self.tls) : nil
        let hostname = url.host.contains(":") || url.host.allSatisfy({ $0.isNumber || $0 == "." }) ? nil : url.host
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: hostname))
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(BodyCollector(promise: promise, limit: limit, source: source))
                }
            }
        let started = NIODeadline.now()
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: url.host, port: url.port).get()
        } catch {
            promise.fail(error)
            throw error
        }
        // One deadline for the whole fetch: what the connection took is gone from the answer's time.
        let deadline = channel.eventLoop.scheduleTask(deadline: started + timeout) {
            promise.fail(JWKSError.unreadable(source: source, reason: "no answer within \(timeout.nanoseconds / 1_000_000_000) s"))
            channel.close(promise: nil)
        }
        defer {
            deadline.cancel()
            channel.close(promise: nil)
        }
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: url.target)
        let defaultPort = url.isTLS ? 443 : 80
        let hostHeader = url.host.contains(":") ? "[\(url.host)]" : url.host
        head.headers.add(name: "Host", value: url.port == defaultPort ? hostHeader : "\(hostHeader):\(url.port)")
        head.headers.add(name: "Accept", value: "application/json, application/jwk-set+json")
        head.headers.add(name: "User-Agent", value: "sessionhub")
        head.headers.add(name: "Connection", value: "close")
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        return try await promise.futureResult.get()
    }
}

/// Gathers one 200 response's body into the promise (or fails it).
private final class BodyCollector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let promise: EventLoopPromise<[UInt8]>
    private let limit: Int
    private let source: String
    private var status: HTTPResponseStatus?
    private var body = ByteBuffer()

    init(promise: EventLoopPromise<[UInt8]>, limit: Int, source: String) {
        self.promise = promise
        self.limit = limit
        self.source = source
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = head.status
        case .body(var chunk):
            guard body.readableBytes + chunk.readableBytes <= limit else {
                promise.fail(JWKSError.unreadable(source: source, reason: "answer larger than \(limit) bytes"))
                context.close(promise: nil)
                return
            }
            body.writeBuffer(&chunk)
        case .end:
            if status == .ok {
                promise.succeed(body.readBytes(length: body.readableBytes) ?? [])
            } else {
                promise.fail(JWKSError.unreadable(source: source, reason: "HTTP status \(status.map { "\($0.code)" } ?? "?")"))
            }
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(JWKSError.unreadable(source: source, reason: "connection closed before the answer"))
        context.fireChannelInactive()
    }
}
