import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// A tiny HTTP/1.1 server on a loopback port that answers every GET with the JWKS it holds
/// (changeable while it runs), standing in for an identity provider's `jwks_uri`.
final class JWKSTestServer: Sendable {
    private let body: Mutex<Data>
    private let served = Atomic<Int>(0)
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private let channel: Mutex<(any Channel)?> = Mutex(nil)

    private let tls: NIOSSLContext?

    /// Serves `jwks`, over TLS with `tls` when given.
    init(jwks: Data, tls: NIOSSLContext? = nil) {
        body = Mutex(jwks)
        self.tls = tls
    }

    /// Requests answered so far.
    var requests: Int { served.load(ordering: .relaxed) }

    /// Serves `jwks` from now on.
    func publish(_ jwks: Data) { body.withLock { $0 = jwks } }

    /// Binds and returns the URL of the JWKS.
    func start() async throws -> String {
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Responder(server: self))
                }
            }
        let bound = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        channel.withLock { $0 = bound }
        let port = bound.localAddress?.port ?? 0
        // The throw-away certificate names localhost.
        return tls == nil ? "http://127.0.0.1:\(port)/.well-known/jwks.json" : "https://localhost:\(port)/.well-known/jwks.json"
    }

    func stop() async {
        let bound = channel.withLock { $0 }
        try? await bound?.close()
        try? await group.shutdownGracefully()
    }

    fileprivate func answer() -> Data {
        served.add(1, ordering: .relaxed)
        return body.withLock { $0 }
    }

    private final class Responder: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let server: JWKSTestServer

        init(server: JWKSTestServer) { self.server = server }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .end = unwrapInboundIn(data) else { return }
            let bytes = server.answer()
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "Content-Length", value: "\(bytes.count)")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
