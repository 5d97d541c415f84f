import NIOCore
import WebSocketTransport

/// One player of a `sessions` run: ``SessionPlayer`` (its own lean WebSocket endpoint) or
/// ``ClientSessionPlayer`` (on `SessionHubClient`, the library apps use). Its seat is a
/// ``SeatFlow``: the player feeds the flow what its connection receives, and carries out the
/// flow's actions; the requests with its own transport (``send(_:)``), the rest (the say timer,
/// the retries) the same way for both, in this protocol's extension. Everything but the `let`s
/// is touched on ``loop`` only.
protocol LoadPlayer: AnyObject, Sendable {
    var index: Int { get }
    /// 0: the host of its slot; above: a joiner.
    var seat: Int { get }
    var userId: String { get }
    var loop: any EventLoop { get }

    /// The seat's flow.
    var flow: SeatFlow { get set }
    /// The say timers of this player's loop.
    var sayClock: SayClock { get }
    /// The player's say timer runs on ``sayClock``.
    var speaking: Bool { get set }

    /// Opens the connection (called once, off the loop).
    func start(url: WebSocketURL, token: String, deflate: Bool) async
    /// Sends a request of the flow (its refusal comes back to ``SeatFlow/refused(code:kind:)``).
    func send(_ request: SeatFlow.Request)
    /// Close the connection normally.
    func closeNow()
}

extension LoadPlayer {
    /// Nothing more is expected on this connection (for the end of the run).
    var settled: Bool { flow.settled }
    /// The connection is closed.
    var isClosed: Bool { flow.isClosed }
    var lost: Int { flow.lost }
    var duplicated: Int { flow.duplicated }
    var sessionsJoined: Int { flow.sessionsJoined }
    var unfinished: Int { flow.unfinished }

    /// Joiner: the slot's host opened session `generation` with `code`.
    func offer(code: String, generation: Int, force: Bool) {
        perform(flow.offer(code: code, generation: generation, force: force))
    }

    /// Stop speaking; the host ends its session.
    func finish() {
        stopSpeaking()
        perform(flow.finish())
    }

    /// Carries out what the flow asks.
    func perform(_ action: SeatFlow.Action) {
        switch action {
        case .none:
            break
        case .send(let request):
            send(request)
        case .startSpeaking:
            guard !speaking, let times = flow.sayTimes() else { return }
            speaking = true
            sayClock.start(self, first: times.first, every: times.every)
        case .stopSpeaking:
            stopSpeaking()
        case .retryLater(let retry, let delay):
            loop.scheduleTask(in: delay) { [self] in perform(flow.retry(retry)) }
        }
    }

    /// The say timer ticked (``SayClock``) at `now`.
    func sayTick(now: UInt64) {
        perform(flow.sayDue(now: now))
    }

    /// Cancels the say timer.
    func stopSpeaking() {
        guard speaking else { return }
        speaking = false
        sayClock.stop(index)
    }
}

import ArgumentParser

extension PlayerKind: ExpressibleByArgument {}
