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
    private enum Phase: Equatable {
        case connecting
        case lobby
        case requesting
        case inSession
        case closed
    }

    let index: Int
    let seat: Int
    let userId: String
    let loop: any EventLoop
    let recorder: Recorder
    let slot: SessionSlot
    let plan: SessionsPlan

    private var phase = Phase.connecting
    private var client: SessionHubClient?
    private let connectStart: UInt64
    private var requestSentAt: UInt64 = 0
    private var sessionId: String?
    private var ledger = SeatLedger()
    private var generation = 0
    private var joinedGeneration = 0
    private var pendingCode: String?
    private var pendingGeneration = 0
    private var sayTimer: RepeatedTask?
    private var stopping = false
    private var closingByUs = false
    private var gotEnded = true
    private var rng: SplitMix64
    private var retries = 0
    private var lastJoinCode: String?

    var lost: Int { ledger.lost }
    var duplicated: Int { ledger.duplicated }
    private(set) var sessionsJoined = 0
    private(set) var unfinished = 0

    init(index: Int, seat: Int, userId: String, loop: any EventLoop, recorder: Recorder, slot: SessionSlot, plan: SessionsPlan,
         connectStart: UInt64) {
        self.index = index
        self.seat = seat
        self.userId = userId
        self.loop = loop
        self.recorder = recorder
        self.slot = slot
        self.plan = plan
        self.connectStart = connectStart
        self.rng = SplitMix64(seed: plan.seed &+ UInt64(index) &* 0x9E37_79B9)
    }

    var settled: Bool {
        switch phase {
        case .closed: return true
        case .lobby: return pendingCode == nil || stopping
        default: return false
        }
    }

    var isClosed: Bool { phase == .closed }

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
                    self.loop.execute { self.closed(code: code, reason: reason) }
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
        guard phase == .connecting else { return }
        recorder.connectFailures += 1
        recorder.error("connect: \(SessionPlayer.short(error))")
        phase = .closed
    }

    private func welcomed(_ welcome: ServerMessage.Welcome, now: UInt64) {
        guard phase == .connecting else { return }
        recorder.welcome.record(Recorder.micros(connectStart, now))
        if let limit = welcome.limits["linesPerSecond"], plan.rate >= Double(limit) {
            recorder.error("rate \(plan.rate)/s is not under the hub's linesPerSecond \(limit)")
        }
        if welcome.resumableSessionId != nil { recorder.error("user still seated (resumableSessionId)") }
        phase = .lobby
        if seat == 0 { hostNext() } else { tryJoin() }
    }

    private func closed(code: Int?, reason: String) {
        let wasInSession = phase == .inSession || phase == .requesting
        phase = .closed
        sayTimer?.cancel()
        sayTimer = nil
        if !closingByUs {
            let text = code.map(String.init) ?? "1006"
            recorder.close(reason.isEmpty ? text : "\(text) \(reason.prefix(60))")
        }
        if wasInSession && !gotEnded { unfinished += 1 }
    }

    // MARK: Receiving

    private func received(_ message: ServerMessage, now: UInt64) {
        switch message {
        case .joined(let joined):
            joinedSession(joined.session, now: now)
        case .left(let left):
            leftSession(reason: left.reason)
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
            sessionEnded(cause: ended.cause.rawValue)
        case .participants, .stats, .recast, .recastAccepted, .hostChanged:
            guard let id = message.sessionId, let seq = message.seq else { return }
            if track(id, seq: seq) { recorder.otherBroadcasts += 1 }
        case .welcome, .resumed, .error, .pong, .scenarios, .other:
            break  // answers reach the calls that asked (errors are counted there)
        }
    }

    /// Checks a broadcast's session and seq; true when it is new.
    private func track(_ id: String, seq: Int) -> Bool {
        guard phase == .inSession, id == sessionId else {
            recorder.foreign += 1
            return false
        }
        return ledger.track(seq, into: recorder)
    }

    // MARK: Session flow

    /// Runs a request of the client; a failure comes back to the loop.
    private func ask(_ kind: String, _ call: @escaping @Sendable (SessionHubClient) async throws -> Void) {
        guard let client else { return }
        Task {
            do {
                try await call(client)
            } catch {
                self.loop.execute { self.failed(kind, error) }
            }
        }
    }

    private func hostNext() {
        guard phase == .lobby, !stopping, monotonicNanos() < plan.rehostCutoff else { return }
        generation += 1
        phase = .requesting
        requestSentAt = monotonicNanos()
        let (scenario, players) = (plan.scenarioId, plan.players)
        ask("host") { _ = try await $0.host(scenarioId: scenario, maxPlayers: players) }
    }

    func offer(code: String, generation: Int, force: Bool) {
        guard generation > joinedGeneration || force else { return }
        pendingCode = code
        pendingGeneration = generation
        tryJoin()
    }

    private func tryJoin() {
        guard phase == .lobby, !stopping, let code = pendingCode else { return }
        pendingCode = nil
        joinedGeneration = pendingGeneration
        lastJoinCode = code
        phase = .requesting
        requestSentAt = monotonicNanos()
        ask("join") { _ = try await $0.join(code: code) }
    }

    private func joinedSession(_ session: ServerMessage.Snapshot, now: UInt64) {
        recorder.join.record(Recorder.micros(requestSentAt, now))
        retries = 0
        phase = .inSession
        gotEnded = false
        sessionsJoined += 1
        sessionId = session.sessionId
        ledger.joined(session)
        if stopping {
            if seat == 0 { ask("end") { _ = try await $0.end() } }
            return
        }
        if seat == 0, let code = session.joinCode { slot.opened(code: code, generation: generation) }
        startSpeaking()
    }

    private func sessionEnded(cause: String) {
        gotEnded = true
        if seat == 0 { slot.ended(cause: cause) }
    }

    private func leftSession(reason: String) {
        if reason != "ended" && reason != "left" { recorder.error("left: \(reason)") }
        if phase == .inSession && !gotEnded { unfinished += 1 }
        guard phase != .closed else { return }
        phase = .lobby
        sessionId = nil
        sayTimer?.cancel()
        sayTimer = nil
        if seat == 0 { hostNext() } else { tryJoin() }
    }

    /// A call of the client threw.
    private func failed(_ kind: String, _ error: any Error) {
        let code: String
        switch error as? SessionHubClientError {
        case .refused(let refusal, _, _)?: code = refusal
        case .connectionClosed?, .notConnected?: return  // the close is counted once, by `closed`
        case .wrongState?: code = "not_in_session"  // the client knew the session was over
        case .timedOut?: code = "timed_out"
        default: code = SessionPlayer.short(error)
        }
        if kind == "say", code == "session_ended" || code == "not_in_session" {
            recorder.lateRequests += 1  // a say that raced the end of its session
            return
        }
        if stopping, kind == "join" || kind == "end" {
            recorder.lateRequests += 1
            if phase == .requesting { phase = .lobby }
            return
        }
        recorder.error("\(code) (\(kind))")
        guard phase == .requesting, kind == "host" || kind == "join" else { return }
        phase = .lobby
        // `left` came, yet the hub may not have released the seat: try again shortly (3 times).
        guard code == "already_in_session", retries < 3 else { return }
        retries += 1
        recorder.retries += 1
        let rejoin = kind == "join" ? lastJoinCode : nil
        loop.scheduleTask(in: .milliseconds(200)) { [self] in
            if kind == "host" {
                generation -= 1
                hostNext()
            } else if let rejoin, pendingCode == nil {
                offer(code: rejoin, generation: joinedGeneration, force: true)
            }
        }
    }

    // MARK: Speaking

    private func startSpeaking() {
        guard sayTimer == nil, plan.rate > 0 else { return }
        let interval = Double(1) / plan.rate
        let phaseOffset = Double(rng.next() % 1_000_000) / 1_000_000 * interval
        sayTimer = loop.scheduleRepeatedTask(
            initialDelay: .nanoseconds(Int64(phaseOffset * 1e9)), delay: .nanoseconds(Int64(interval * 1e9))
        ) { [self] _ in
            sayOne()
        }
    }

    private func sayOne() {
        let now = monotonicNanos()
        if now >= plan.speakEnd {
            sayTimer?.cancel()
            sayTimer = nil
            return
        }
        guard phase == .inSession, !gotEnded else { return }
        let line = ledger.nextLine(speaker: index)
        ask("say") { _ = try await $0.say(line.text, translation: line.translation) }
        recorder.sentOne(now: now)
    }

    // MARK: Ending

    func finish() {
        stopping = true
        sayTimer?.cancel()
        sayTimer = nil
        pendingCode = nil
        if seat == 0, phase == .inSession, !gotEnded { ask("end") { _ = try await $0.end() } }
    }

    func closeNow() {
        closingByUs = true
        if phase == .inSession && !gotEnded {
            unfinished += 1
            gotEnded = true
        }
        guard let client else {
            phase = .closed
            return
        }
        Task { await client.close() }
    }
}
