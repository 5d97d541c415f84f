import Foundation
import HubDomain
import HubProtocol
import NIOCore
import SessionHubClient
import WebSocketTransport

/// One player on `SessionHubClient`, the library apps use (`sessions --player client`, the
/// default): the client connects, hosts or joins, says lines and hands over every message on
/// its `events`; this player records them into its loop's recorder exactly as ``SessionPlayer``
/// does and checks each connection's `seq` on its own (lost, duplicated), so the client is
/// measured, not trusted. The client runs without a reconnect policy: a drop is counted as a
/// close, not hidden by a resume.
///
/// The client's calls run in tasks; whatever they report comes back to ``loop``, where all of
/// this player's state lives.
final class ClientSessionPlayer: LoadPlayer, @unchecked Sendable {
    let index: Int
    let seat: Int
    let userId: String
    let loop: any EventLoop
    let recorder: Recorder
    let plan: SessionsPlan

    var flow: SeatFlow
    let sayClock: SayClock
    /// Whether the say timer runs (on ``sayClock``): while the seat is in a session; each session
    /// starts it anew.
    var speaking = false
    private var client: SessionHubClient?
    private var sessionId: String?

    init(index: Int, seat: Int, userId: String, loop: any EventLoop, recorder: Recorder, sayClock: SayClock, slot: SessionSlot,
         plan: SessionsPlan, connectStart: UInt64) {
        self.sayClock = sayClock
        self.index = index
        self.seat = seat
        self.userId = userId
        self.loop = loop
        self.recorder = recorder
        self.plan = plan
        self.flow = SeatFlow(index: index, seat: seat, plan: plan, slot: slot, recorder: recorder, connectStart: connectStart)
    }

    // MARK: Connecting

    func start(url: WebSocketURL, token: String, deflate: Bool) async {
        let client: SessionHubClient
        do {
            client = try SessionHubClient(url: url.description, requestTimeout: .seconds(15), reconnect: nil, deflate: deflate) { token }
        } catch {
            loop.execute { self.connectFailed(error) }
            return
        }
        loop.execute { self.client = client }
        Task {
            for await message in client.events {
                let now = monotonicNanos()
                self.loop.execute { self.received(message, now: now) }
            }
        }
        Task {
            for await state in client.states {
                if case .closed(let code, let reason) = state {
                    self.loop.execute { self.perform(self.flow.closed(code: code, reason: reason)) }
                }
            }
        }
        do {
            let welcome = try await client.connect()
            let now = monotonicNanos()
            loop.execute { self.welcomed(welcome, now: now) }
        } catch {
            loop.execute { self.connectFailed(error) }
        }
    }

    private func connectFailed(_ error: any Error) {
        guard flow.phase == .connecting else { return }
        flow.connectFailed(error)
    }

    private func welcomed(_ welcome: ServerMessage.Welcome, now: UInt64) {
        guard flow.phase == .connecting else { return }
        perform(flow.welcomed(welcome, now: now))
    }

    // MARK: Receiving

    private func received(_ message: ServerMessage, now: UInt64) {
        switch message {
        case .joined(let joined):
            sessionId = joined.session.sessionId
            perform(flow.joined(JoinedSession(joined.session), now: now))
        case .left(let left):
            sessionId = nil
            stopSpeaking()
            perform(flow.left(reason: left.reason))
        case .line(let line):
            guard track(line.sessionId, seq: line.seq) else { return }
            if let tag = SeatLedger.tag(in: line.line.textTranslated) {
                recorder.delivery(sentAt: tag.sentAt, now: now)
                if tag.speaker == index { recorder.acked += 1 }
            } else {
                recorder.foreign += 1
            }
        case .ended(let ended):
            guard track(ended.sessionId, seq: ended.seq) else { return }
            recorder.otherBroadcasts += 1
            flow.ended(cause: ended.cause.rawValue)
        case .participants, .stats, .recast, .recastAccepted, .hostChanged:
            guard let id = message.sessionId, let seq = message.seq else { return }
            if track(id, seq: seq) { recorder.otherBroadcasts += 1 }
        case .welcome, .resumed, .error, .pong, .scenarios, .other:
            break  // answers reach the calls that asked (errors are counted there)
        }
    }

    /// Checks a broadcast's session and seq; true when it is new.
    private func track(_ id: String, seq: Int) -> Bool {
        guard flow.inSession, id == sessionId else {
            recorder.foreign += 1
            return false
        }
        return flow.track(seq)
    }

    // MARK: Requests

    /// Sends a request of the flow with the client's call (a failure comes back to ``failed(_:_:)``).
    func send(_ request: SeatFlow.Request) {
        switch request {
        case .host:
            let (scenario, players) = (plan.scenarioId, plan.players)
            ask(request.kind) { _ = try await $0.host(scenarioId: scenario, maxPlayers: players) }
        case .join(let code, _):
            ask(request.kind) { _ = try await $0.join(code: code) }
        case .say(let text, let translation, _):
            ask(request.kind) { _ = try await $0.say(text, translation: translation) }
        case .end:
            ask(request.kind) { _ = try await $0.end() }
        }
    }

    /// Runs a request of the client; a failure comes back to the loop.
    private func ask(_ kind: SeatFlow.Request.Kind, _ call: @escaping @Sendable (SessionHubClient) async throws -> Void) {
        guard let client else { return }
        Task {
            do {
                try await call(client)
            } catch {
                self.loop.execute { self.failed(kind, error) }
            }
        }
    }

    /// A call of the client threw.
    private func failed(_ kind: SeatFlow.Request.Kind, _ error: any Error) {
        let code: String
        switch error as? SessionHubClientError {
        case .refused(let refusal, _, _)?: code = refusal
        case .connectionClosed?, .notConnected?: return  // the close is counted once, by `closed`
        case .wrongState?: code = "not_in_session"  // the client knew the session was over
        case .timedOut?: code = "timed_out"
        default: code = SessionPlayer.short(error)
        }
        perform(flow.refused(code: code, kind: kind))
    }

    /// Close the connection normally.
    func closeNow() {
        flow.closing()
        guard let client else {
            perform(flow.closed(code: nil, reason: ""))  // never connected: nothing to close, nothing to count
            return
        }
        Task { await client.close() }
    }
}
