import NIOCore
import SessionHubSync

/// What threads off an event loop ask of that loop's connections (a session's broadcast, a
/// reply from a task, a close), gathered and carried out by one task on the loop, with each
/// connection flushed once at the end, instead of one loop task, one lock round and one flush
/// per frame. Calls are carried out in the order they were made, so a connection's frames keep
/// their order.
///
/// One outbox per event loop, made on first use; like ``KeepaliveWheel``s, outboxes live as long
/// as the process and keep their loop alive, so a key is never reused.
final class LoopOutbox: Sendable {
    private static let outboxes = PerEventLoop { LoopOutbox(eventLoop: $0) }

    /// One call waiting for the loop.
    private struct Item: Sendable {
        enum Work {
            case frame(PreparedFrame)
            case call(@Sendable (WebSocketChannelHandler) -> Void)
        }

        let handler: HandlerBox
        let work: Work
        /// Counts the call as a dropped frame when the connection is gone; nil for a non-message.
        let statistics: WebSocketStatistics?
    }

    private struct Queue: Sendable {
        var items: [Item] = []
        /// A task to carry out `items` is on the loop.
        var scheduled = false
    }

    private let eventLoop: any EventLoop
    private let queue = LockedValue(Queue())

    private init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// The outbox of `eventLoop`.
    static func on(_ eventLoop: any EventLoop) -> LoopOutbox {
        outboxes.on(eventLoop)
    }

    /// Writes `frame` on `handler`'s connection, soon, on the loop.
    func send(_ frame: PreparedFrame, to handler: HandlerBox, statistics: WebSocketStatistics?) {
        enqueue(Item(handler: handler, work: .frame(frame), statistics: statistics))
    }

    /// Runs `body` with `handler`, soon, on the loop.
    func run(_ body: @escaping @Sendable (WebSocketChannelHandler) -> Void,
             on handler: HandlerBox, statistics: WebSocketStatistics?) {
        enqueue(Item(handler: handler, work: .call(body), statistics: statistics))
    }

    private func enqueue(_ item: Item) {
        let schedule = queue.withLock { queue -> Bool in
            queue.items.append(item)
            if queue.scheduled { return false }
            queue.scheduled = true
            return true
        }
        if schedule { eventLoop.execute { self.drain() } }
    }

    /// On the loop: carries out at once what is queued (a connection moving away from the loop
    /// takes its last calls with it).
    func drainNow() {
        eventLoop.preconditionInEventLoop()
        drain()
    }

    /// On the loop: carries out everything queued (including what arrives meanwhile), then
    /// flushes each connection written to.
    private func drain() {
        var written: [WebSocketChannelHandler] = []
        while true {
            let items = queue.withLock { queue -> [Item] in
                let items = queue.items
                queue.items.removeAll(keepingCapacity: true)
                if items.isEmpty { queue.scheduled = false }
                return items
            }
            if items.isEmpty { break }
            for item in items {
                guard let handler = item.handler.value else {
                    item.statistics?.noteDroppedFrame()
                    continue
                }
                if handler.beginDeferredFlush() { written.append(handler) }
                switch item.work {
                case .frame(let frame): handler.sendPrepared(frame)
                case .call(let body): body(handler)
                }
            }
        }
        for handler in written { handler.endDeferredFlush() }
    }
}
