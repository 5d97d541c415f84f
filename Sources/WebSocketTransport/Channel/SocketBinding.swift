import NIOCore

/// Where a ``WebSocketSocket`` lives: its event loop, its channel handler there (bound to that
/// loop) and the loop's ``LoopOutbox``. Immutable; a connection that moves gets a new one.
final class SocketBinding: Sendable {
    let eventLoop: any EventLoop
    let handler: HandlerBox
    /// Carries calls made off the loop onto it, batched with the loop's other connections.
    let outbox: LoopOutbox

    init(eventLoop: any EventLoop, handler: HandlerBox) {
        self.eventLoop = eventLoop
        self.handler = handler
        self.outbox = LoopOutbox.on(eventLoop)
    }
}
