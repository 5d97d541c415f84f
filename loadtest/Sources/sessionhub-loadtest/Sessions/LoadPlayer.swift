import NIOCore
import WebSocketTransport

/// One player of a `sessions` run: ``SessionPlayer`` (its own lean WebSocket endpoint) or
/// ``ClientSessionPlayer`` (on `SessionHubClient`, the library apps use). Everything but the
/// `let`s is touched on ``loop`` only.
protocol LoadPlayer: AnyObject, Sendable {
    var index: Int { get }
    /// 0: the host of its slot; above: a joiner.
    var seat: Int { get }
    var userId: String { get }
    var loop: any EventLoop { get }

    /// Nothing more is expected on this connection (for the end of the run).
    var settled: Bool { get }
    /// The connection is closed.
    var isClosed: Bool { get }
    var lost: Int { get }
    var duplicated: Int { get }
    var sessionsJoined: Int { get }
    var unfinished: Int { get }

    /// Opens the connection (called once, off the loop).
    func start(url: WebSocketURL, token: String, deflate: Bool) async
    /// Joiner: the slot's host opened session `generation` with `code`.
    func offer(code: String, generation: Int, force: Bool)
    /// Stop speaking; the host ends its session.
    func finish()
    /// Close the connection normally.
    func closeNow()
}

import ArgumentParser

extension PlayerKind: ExpressibleByArgument {}
