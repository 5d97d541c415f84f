import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A plain TCP client for tests that must send exactly the bytes they choose (half a request
/// head, nothing at all) and see whether and how the server ends the connection.
final class RawConnection: Sendable {
    let channel: any Channel
    private let received: NIOLockedValueBox<ByteBuffer>

    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let received: NIOLockedValueBox<ByteBuffer>
        init(_ received: NIOLockedValueBox<ByteBuffer>) { self.received = received }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var bytes = unwrapInboundIn(data)
            received.withLockedValue { $0.writeBuffer(&bytes) }
        }
    }

    private init(channel: any Channel, received: NIOLockedValueBox<ByteBuffer>) {
        self.channel = channel
        self.received = received
    }

    /// Connects to 127.0.0.1:`port`.
    static func open(port: Int) async throws -> RawConnection {
        let received = NIOLockedValueBox(ByteBuffer())
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Collector(received)) }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        return RawConnection(channel: channel, received: received)
    }

    /// Writes `text` as it is.
    func send(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text))
    }

    /// Writes `bytes` as they are.
    func send(_ bytes: ByteBuffer) async throws {
        try await channel.writeAndFlush(bytes)
    }

    /// Everything received so far.
    var text: String { String(buffer: received.withLockedValue { $0 }) }

    /// Whether the server closed the connection within `seconds`.
    func closedByServer(within seconds: Double) async -> Bool {
        let deadline = NIODeadline.now() + .milliseconds(Int64(seconds * 1000))
        while channel.isActive, NIODeadline.now() < deadline {
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return !channel.isActive
    }

    /// Waits until `text` contains one of `needles` `times` times (at most `seconds`, and not
    /// after the connection closed).
    func receive(_ needles: String..., times: Int = 1, within seconds: Double = 5) async -> Bool {
        let deadline = NIODeadline.now() + .milliseconds(Int64(seconds * 1000))
        func done() -> Bool {
            let text = self.text
            return needles.contains { text.components(separatedBy: $0).count - 1 >= times }
        }
        while !done(), channel.isActive, NIODeadline.now() < deadline {
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return done()
    }

    /// Closes with a reset (SO_LINGER 0), as a client that crashed or was cut off.
    func abort() async {
        if let provider = channel as? any SocketOptionProvider {
            try? await provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        }
        try? await channel.close()
    }

    /// Closes normally.
    func close() async {
        try? await channel.close()
    }
}
