import NIOConcurrencyHelpers
import NIOCore

/// One keepalive timer per event loop and ping interval, shared by every connection on that
/// loop, instead of a repeated task per connection: an idle connection then costs a dictionary
/// slot rather than a scheduled task with its closures. Each tick asks every registered handler
/// to check its own silence (ping, then close after two silent intervals).
///
/// Members are held strongly and leave through ``unregister(_:)``, which the handler calls when
/// it is removed from its pipeline (every channel's handlers are removed when it closes). A weak
/// reference would give every handler a side-table reference count, which makes each retain and
/// release of it (several per message on the hot path) take the runtime's slow path.
final class KeepaliveWheel {
    private static let wheels = NIOLockedValueBox<[Key: NIOLoopBound<KeepaliveWheel>]>([:])

    private struct Key: Hashable {
        let loop: ObjectIdentifier
        let interval: Int64
    }

    private let eventLoop: any EventLoop
    private let interval: TimeAmount
    private var members: [ObjectIdentifier: WebSocketChannelHandler] = [:]
    private var task: RepeatedTask?

    private init(eventLoop: any EventLoop, interval: TimeAmount) {
        self.eventLoop = eventLoop
        self.interval = interval
    }

    /// The wheel of `eventLoop` for `interval`; call on that loop. Wheels live as long as the
    /// process (one per loop and interval) and keep their loop alive, so a key is never reused.
    static func on(_ eventLoop: any EventLoop, interval: TimeAmount) -> KeepaliveWheel {
        let key = Key(loop: ObjectIdentifier(eventLoop), interval: interval.nanoseconds)
        return wheels.withLockedValue { wheels in
            if let existing = wheels[key] { return existing.value }
            let wheel = KeepaliveWheel(eventLoop: eventLoop, interval: interval)
            wheels[key] = NIOLoopBound(wheel, eventLoop: eventLoop)
            return wheel
        }
    }

    /// Adds a connection; the timer starts with the first one.
    func register(_ handler: WebSocketChannelHandler) {
        eventLoop.assertInEventLoop()
        members[ObjectIdentifier(handler)] = handler
        if task == nil {
            let bound = NIOLoopBound(self, eventLoop: eventLoop)
            task = eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
                bound.value.tick()
            }
        }
    }

    /// Removes a connection.
    func unregister(_ handler: WebSocketChannelHandler) {
        eventLoop.assertInEventLoop()
        members[ObjectIdentifier(handler)] = nil
    }

    private func tick() {
        // Iterates a snapshot: a tick may close a connection, which unregisters it.
        for handler in members.values {
            handler.keepaliveTick()
        }
    }
}
