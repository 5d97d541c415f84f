import NIOCore

/// Sits in front of the HTTP decoder and tells the ``HTTPUpgradeHandler`` that raw bytes arrived,
/// which the decoder does not report until a request head is complete: a keep-alive connection's
/// next request starts its head deadline with its first byte, and a partial head earns a 408
/// rather than a silent close. Removed with the HTTP handlers at the upgrade.
final class HTTPInputWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private weak var target: HTTPUpgradeHandler?

    init(reportingTo target: HTTPUpgradeHandler) {
        self.target = target
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        target?.bytesArrived()
        context.fireChannelRead(data)
    }
}
