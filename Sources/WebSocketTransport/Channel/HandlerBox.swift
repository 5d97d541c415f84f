import NIOCore

/// A connection's channel handler, for code that may run on any thread but reads it only on the
/// handler's event loop (the socket's binding, the loop's outbox items). Unlike NIO's
/// `NIOLoopBoundBox`, it can be made off the loop already holding its handler: a connection
/// moving to another loop gets its new box, handler inside, before any call is routed there.
///
/// `@unchecked Sendable`: the handler is only reached through ``value``, on `eventLoop`
/// (checked in debug builds), and the one who makes the box hands the handler over with it.
final class HandlerBox: @unchecked Sendable {
    private let eventLoop: any EventLoop
    private var handler: WebSocketChannelHandler?

    /// A box for `handler` on `eventLoop`; the caller no longer uses `handler` outside the box.
    init(_ handler: WebSocketChannelHandler?, eventLoop: any EventLoop) {
        self.handler = handler
        self.eventLoop = eventLoop
    }

    /// The handler; nil once its connection is gone. On the box's loop only.
    var value: WebSocketChannelHandler? {
        get {
            eventLoop.assertInEventLoop()
            return handler
        }
        set {
            eventLoop.assertInEventLoop()
            handler = newValue
        }
    }
}
