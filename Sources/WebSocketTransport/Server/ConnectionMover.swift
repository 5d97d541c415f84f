#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import NIOCore
import NIOPosix

/// Moves an upgraded server connection from one event loop to another
/// (``WebSocketSocket/move(to:)``): its socket's descriptor is duplicated, the old channel
/// closes its own descriptor (which leaves the TCP connection as it is while the duplicate is
/// open), and a new channel on the target loop takes the duplicate, with the handler carrying the
/// connection's WebSocket state. The connection keeps its id, its place in the server's
/// registry and its counts: the old channel's close does not release them, the new channel's does.
final class ConnectionMover: Sendable {
    private let registry: ConnectionRegistry
    private let limiter: ConnectionLimiter
    private let logger: Logger

    init(registry: ConnectionRegistry, limiter: ConnectionLimiter, logger: Logger) {
        self.registry = registry
        self.limiter = limiter
        self.logger = logger
    }

    /// A duplicate of `channel`'s socket descriptor (close-on-exec), or nil when it cannot be
    /// found or is not the channel's socket. The channel is still open.
    ///
    /// SwiftNIO does not publish a channel's descriptor, so it is read from the channel's
    /// stored socket by reflection, then checked against the channel's addresses before use: a
    /// NIO whose layout changed makes connections stay where they are, never move the wrong one.
    func duplicateDescriptor(of channel: any Channel) -> CInt? {
        guard let socket = Self.storedProperty("socket", of: channel),
              let descriptor = Self.storedProperty("descriptor", of: socket) as? CInt, descriptor >= 0,
              let local = channel.localAddress, let remote = channel.remoteAddress,
              Self.address(of: descriptor, peer: false) == local, Self.address(of: descriptor, peer: true) == remote else {
            logger.debug("connection cannot move: its socket's descriptor was not found")
            return nil
        }
        let duplicate = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        return duplicate >= 0 ? duplicate : nil
    }

    /// Makes the channel on `loop` for connection `id`'s duplicated `descriptor`, with the
    /// handler in `box`. Call on the old loop, before the socket points at `loop` and before
    /// `leaving` (the old channel) closes: that close then releases nothing.
    func adopt(_ descriptor: CInt, id: UInt64, leaving: any Channel, on loop: any EventLoop,
               box: HandlerBox) {
        registry.retire(leaving)
        let registry = self.registry, limiter = self.limiter, logger = self.logger
        loop.submit {
            guard box.value != nil else {
                close(descriptor)
                Self.release(id, registry: registry, limiter: limiter)
                return
            }
            // Whether a channel took the descriptor (it closes it; otherwise it is closed here)
            // and registered the connection (its close releases it; otherwise it is released here).
            let taken = NIOLoopBoundBox(false, eventLoop: loop)
            ClientBootstrap(group: loop)
                .channelOption(ChannelOptions.maxMessagesPerRead, value: WebSocketServer.readsPerEvent)
                .channelOption(ChannelOptions.recvAllocator, value: WebSocketServer.receiveAllocator)
                // Reads start when the handler has taken up the connection (it turns them on).
                .channelOption(ChannelOptions.autoRead, value: false)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        taken.value = true
                        registry.register(id: id, channel: channel)
                        channel.closeFuture.whenComplete { _ in
                            if registry.remove(id, channel: channel) { Self.release(id, registry: registry, limiter: limiter) }
                        }
                        guard let handler = box.value else { throw ChannelError.ioOnClosedChannel }
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                }
                .withConnectedSocket(descriptor)
                .whenFailure { error in
                    logger.warning("a moving connection was lost", metadata: ["conn": "\(id)", "error": "\(error)"])
                    if !taken.value {
                        close(descriptor)
                        Self.release(id, registry: registry, limiter: limiter)
                    }
                    box.value?.arrivalFailed()
                }
        }.whenFailure { _ in
            // The target loop is shutting down: the connection goes with it.
            close(descriptor)
            Self.release(id, registry: registry, limiter: limiter)
        }
    }

    /// What the server releases when a connection is gone for good.
    static func release(_ id: UInt64, registry: ConnectionRegistry, limiter: ConnectionLimiter) {
        registry.statistics.release()
        limiter.release(id)
    }

    /// A stored property of `subject` or of one of its superclasses, by name.
    private static func storedProperty(_ label: String, of subject: Any) -> Any? {
        var mirror: Mirror? = Mirror(reflecting: subject)
        while let current = mirror {
            if let child = current.children.first(where: { $0.label == label }) { return child.value }
            mirror = current.superclassMirror
        }
        return nil
    }

    /// The local or peer address of socket `descriptor`, or nil.
    private static func address(of descriptor: CInt, peer: Bool) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                peer ? getpeername(descriptor, $0, &length) : getsockname(descriptor, $0, &length)
            }
        }
        guard result == 0 else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafeBytes(of: &storage) { SocketAddress($0.load(as: sockaddr_in.self)) }
        case AF_INET6:
            return withUnsafeBytes(of: &storage) { SocketAddress($0.load(as: sockaddr_in6.self)) }
        default:
            return nil
        }
    }
}
