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
        /// Connections between an old channel and a new one (``ConnectionMover``).
        var moving: Set<UInt64> = []
    }

    /// A fresh connection id.
    func nextID() -> UInt64 {
        state.withLockedValue { state in
            state.next += 1
            return state.next
        }
    }

    /// Tracks `channel` as connection `id`'s until ``remove(_:channel:)`` (a moved connection's
    /// new channel replaces its old one).
    func register(id: UInt64, channel: any Channel) {
        state.withLockedValue { state in
            state.channels[id] = channel
            state.moving.remove(id)
        }
    }

    /// Connection `id` is leaving its channel for another: the old channel's close is not the
    /// connection's.
    func beginMove(_ id: UInt64) {
        state.withLockedValue { _ = $0.moving.insert(id) }
    }

    /// The move of connection `id` failed before its new channel was registered; true when the
    /// caller must release the connection (its old channel's close did not).
    func abandonMove(_ id: UInt64) -> Bool {
        state.withLockedValue { state in
            guard state.moving.remove(id) != nil else { return false }
            state.channels[id] = nil
            return true
        }
    }

    /// `channel`, connection `id`'s (it may never have been registered), closed: true when the
    /// connection is gone and its counts are to be released, false when it lives on in another
    /// channel. The server calls it from the one close callback each accepted channel has,
    /// rather than the registry adding a second (a second callback costs every connection a
    /// callback array and a closure context).
    func remove(_ id: UInt64, channel: any Channel) -> Bool {
        state.withLockedValue { state in
            if state.moving.contains(id) {
                if state.channels[id] === channel { state.channels[id] = nil }
                return false
            }
            guard let registered = state.channels[id] else { return true }
            guard registered === channel else { return false }
            state.channels[id] = nil
            return true
        }
    }

    var count: Int { state.withLockedValue { $0.channels.count } }

    /// A snapshot of the open channels.
    var channels: [any Channel] { state.withLockedValue { Array($0.channels.values) } }
}
