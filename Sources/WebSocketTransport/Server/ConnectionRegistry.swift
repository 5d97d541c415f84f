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
        /// Channels whose connection moved to another channel (``ConnectionMover``), until they close.
        var retired: Set<ObjectIdentifier> = []
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
        state.withLockedValue { $0.channels[id] = channel }
    }

    /// `channel` hands its connection to another channel (``ConnectionMover``): its close is not
    /// the connection's.
    func retire(_ channel: any Channel) {
        state.withLockedValue { _ = $0.retired.insert(ObjectIdentifier(channel)) }
    }

    /// `channel`, connection `id`'s (it may never have been registered), closed: true when the
    /// connection is gone and its counts are to be released, false when it lives on in another
    /// channel. The server calls it from the one close callback each accepted channel has,
    /// rather than the registry adding a second (a second callback costs every connection a
    /// callback array and a closure context).
    func remove(_ id: UInt64, channel: any Channel) -> Bool {
        state.withLockedValue { state in
            let retired = state.retired.remove(ObjectIdentifier(channel)) != nil
            if state.channels[id] === channel { state.channels[id] = nil }
            return !retired
        }
    }

    var count: Int { state.withLockedValue { $0.channels.count } }

    /// A snapshot of the open channels.
    var channels: [any Channel] { state.withLockedValue { Array($0.channels.values) } }
}
