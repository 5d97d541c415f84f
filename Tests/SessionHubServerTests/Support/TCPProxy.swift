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
    /// While true, what clients send is dropped instead of forwarded (lost on the way).
    private let losing = NIOLockedValueBox(false)
    /// Where new connections go.
    private let target: NIOLockedValueBox<Int>
    private let listener: any Channel
    /// The proxy's port.
    let port: Int

    /// A proxy on an ephemeral loopback port forwarding to `targetPort`.
    init(to targetPort: Int, tls: NIOSSLContext? = nil) async throws {
        let target = NIOLockedValueBox(targetPort)
        self.target = target
        let group = self.group
        let channels = self.channels
        let losing = self.losing
        listener = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.autoRead, value: false)
            .childChannelInitializer { inbound in
                ClientBootstrap(group: inbound.eventLoop)
                    .connect(host: "127.0.0.1", port: target.withLockedValue { $0 })
                    .flatMap { outbound in
                        channels.withLockedValue { $0 += [inbound, outbound] }
                        return inbound.eventLoop.makeCompletedFuture {
                            if let tls { try inbound.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                        }
                            .flatMap { inbound.pipeline.addHandler(Forward(to: outbound, losing: losing)) }
                            .flatMap { outbound.pipeline.addHandler(Forward(to: inbound)) }
                            .flatMap { inbound.setOption(ChannelOptions.autoRead, value: true) }
                    }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        port = listener.localAddress?.port ?? 0
    }

    /// Sends new connections to `port` from now on (as a front whose node went away).
    func retarget(to port: Int) {
        target.withLockedValue { $0 = port }
    }

    /// From now on (`true`) what clients send is lost on the way, until called with `false`.
    func loseClientBytes(_ lose: Bool) {
        losing.withLockedValue { $0 = lose }
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
        /// Set on the client side: whether its bytes are lost.
        private let losing: NIOLockedValueBox<Bool>?

        init(to peer: any Channel, losing: NIOLockedValueBox<Bool>? = nil) {
            self.peer = peer
            self.losing = losing
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if losing?.withLockedValue({ $0 }) == true { return }
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
