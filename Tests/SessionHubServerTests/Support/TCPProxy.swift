import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// A loopback TCP proxy in front of a hub, for tests that cut connections the way a network
/// does: ``sever()`` closes both sockets of every connection at once, with no WebSocket close
/// frame, so the client sees its connection drop (close code nil). With `tls`, it is a TLS front
/// (it terminates TLS and forwards plain bytes), as a load balancer before the hub would be.
final class TCPProxy: Sendable {
    private let group = MultiThreadedEventLoopGroup.singleton
    private let channels = NIOLockedValueBox<[any Channel]>([])
    private let listener: any Channel
    /// The proxy's port.
    let port: Int

    /// A proxy on an ephemeral loopback port forwarding to `targetPort`.
    init(to targetPort: Int, tls: NIOSSLContext? = nil) async throws {
        let group = self.group
        let channels = self.channels
        listener = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.autoRead, value: false)
            .childChannelInitializer { inbound in
                ClientBootstrap(group: inbound.eventLoop)
                    .connect(host: "127.0.0.1", port: targetPort)
                    .flatMap { outbound in
                        channels.withLockedValue { $0 += [inbound, outbound] }
                        return inbound.eventLoop.makeCompletedFuture {
                            if let tls { try inbound.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                        }
                            .flatMap { inbound.pipeline.addHandler(Forward(to: outbound)) }
                            .flatMap { outbound.pipeline.addHandler(Forward(to: inbound)) }
                            .flatMap { inbound.setOption(ChannelOptions.autoRead, value: true) }
                    }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        port = listener.localAddress?.port ?? 0
    }

    /// Cuts every connection through the proxy (new ones still get through).
    func sever() {
        let all = channels.withLockedValue { channels in
            defer { channels = [] }
            return channels
        }
        for channel in all { channel.close(promise: nil) }
    }

    /// Stops listening and cuts every connection.
    func stop() async {
        sever()
        try? await listener.close()
    }

    /// Copies what one side reads to the other, and closes the other when this one closes.
    private final class Forward: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        private let peer: any Channel

        init(to peer: any Channel) {
            self.peer = peer
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            peer.writeAndFlush(unwrapInboundIn(data), promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            peer.close(promise: nil)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
