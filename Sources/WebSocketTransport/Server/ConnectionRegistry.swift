import NIOConcurrencyHelpers
import NIOCore

/// The server's open WebSocket connections, for counting and for closing them all on shutdown.
final class ConnectionRegistry: Sendable {
    private let state = NIOLockedValueBox(State())
    /// Totals across every connection the server accepted.
    let statistics = WebSocketStatistics()

    private struct State {
        var next: UInt64 = 0
        var channels: [UInt64: any Channel] = [:]
    }

    /// A fresh connection id.
    func nextID() -> UInt64 {
        state.withLockedValue { state in
            state.next += 1
            return state.next
        }
    }

    /// Tracks `channel` until ``remove(_:)``.
    func register(id: UInt64, channel: any Channel) {
        state.withLockedValue { $0.channels[id] = channel }
    }

    /// Forgets connection `id` (closed; it may never have been registered). The server calls it
    /// from the one close callback each accepted channel has, rather than the registry adding a
    /// second (a second callback costs every connection a callback array and a closure context).
    func remove(_ id: UInt64) {
        state.withLockedValue { _ = $0.channels.removeValue(forKey: id) }
    }

    var count: Int { state.withLockedValue { $0.channels.count } }

    /// A snapshot of the open channels.
    var channels: [any Channel] { state.withLockedValue { Array($0.channels.values) } }
}
