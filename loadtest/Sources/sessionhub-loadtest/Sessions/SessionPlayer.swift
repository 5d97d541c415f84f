import Foundation
import HubDomain
import HubProtocol
import SessionHubClient
import NIOCore
import Synchronization
import WebSocket
import WebSocketTransport

/// What every player of a sessions run shares (read-only).
struct SessionsPlan: Sendable {
    let scenarioId: String
    let players: Int
    /// Lines per second per player.
    let rate: Double
    /// Monotonic ns: no `say` after this; hosts then send `end`.
    let speakEnd: UInt64
    /// Monotonic ns: a session that ends after this is not replaced.
    let rehostCutoff: UInt64
    let fullDecode: Bool
    let seed: UInt64
}

/// The seats of one session slot: a host and K−1 joiners that follow it from session to
/// session. When a session reaches its scenario's goal (every scenario's goal is 8–30 lines),
/// the host hosts a new one and the joiners join it, so the load stays on for the whole run.
final class SessionSlot: Sendable {
    let index: Int
    private let members = Mutex<[any LoadPlayer]>([])
    /// Sessions this slot started, and how they ended.
    let counts = Mutex<SlotCounts>(SlotCounts())

    struct SlotCounts: Sendable {
        var hosted = 0
        var endedGoal = 0
        var endedHost = 0
        var endedOther = 0
    }

    init(index: Int) {
        self.index = index
    }

    func set(_ players: [any LoadPlayer]) {
        members.withLock { $0 = players }
    }

    var players: [any LoadPlayer] { members.withLock { $0 } }

    /// The host is in session `generation` with `code`: tell the joiners (each on its own loop).
    func opened(code: String, generation: Int) {
        counts.withLock { $0.hosted += 1 }
        for player in players where player.seat > 0 {
            player.loop.execute { player.offer(code: code, generation: generation, force: false) }
        }
    }

    func ended(cause: String) {
        counts.withLock {
            switch cause {
            case "goalReached": $0.endedGoal += 1
            case "hostEnded": $0.endedHost += 1
            default: $0.endedOther += 1
            }
        }
    }
}

/// One player's connection to `/ws`. All of its state lives on its event loop: the endpoint
/// callbacks run there, and everything else reaches it with `loop.execute`.
final class SessionPlayer: WebSocketEndpoint, LoadPlayer, @unchecked Sendable {
    enum Phase: Equatable {
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

    private(set) var phase = Phase.connecting
    private var socket: WebSocketSocket?
    private let connectStart: UInt64
    private var requestSentAt: UInt64 = 0
    private var welcomed = false
    private var sessionIdBytes: [UInt8] = []
    private var ledger = SeatLedger()
    private var generation = 0
    private var joinedGeneration = 0
    private var pendingCode: String?
    private var pendingGeneration = 0
    private var sayTimer: RepeatedTask?
    private var stopping = false
    private var closingByUs = false
    private var gotEnded = true
    private let decoder = ServerMessageDecoder()
    private var rng: SplitMix64
    private var retries = 0
    private var lastJoinCode: String?

    /// Per connection, for the report.
    var lost: Int { ledger.lost }
    var duplicated: Int { ledger.duplicated }
    private(set) var sessionsJoined = 0
    private(set) var unfinished = 0

    init(index: Int, seat: Int, userId: String, loop: any EventLoop, recorder: Recorder, slot: SessionSlot, plan: SessionsPlan,
         connectStart: UInt64) {
        self.connectStart = connectStart
        self.index = index
        self.seat = seat
        self.userId = userId
        self.loop = loop
        self.recorder = recorder
        self.slot = slot
        self.plan = plan
        self.rng = SplitMix64(seed: plan.seed &+ UInt64(index) &* 0x9E37_79B9)
    }

    /// Whether nothing more is expected on this connection (for the end of the run).
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
        let configuration = WebSocketClientConfiguration(
            compression: deflate ? .default : PerMessageDeflateConfiguration(isEnabled: false),
            headers: [(name: "Authorization", value: "Bearer \(token)")])
        do {
            _ = try await WebSocketClient.connect(to: url, configuration: configuration, group: loop) { self }
        } catch {
            loop.execute { self.connectFailed(error) }
        }
    }

    func connectFailed(_ error: any Error) {
        recorder.connectFailures += 1
        recorder.error("connect: \(Self.short(error))")
        phase = .closed
    }

    func webSocketDidOpen(_ socket: WebSocketSocket) {
        self.socket = socket
        recorder.connect.record(Recorder.micros(connectStart, monotonicNanos()))
    }

    func webSocketDidClose(_ socket: WebSocketSocket, code: WebSocketCloseCode?, reason: String) {
        let wasInSession = phase == .inSession || phase == .requesting
        phase = .closed
        sayTimer?.cancel()
        sayTimer = nil
        self.socket = nil
        if !closingByUs {
            let text = code.map { "\($0.rawValue)" } ?? "1006"
            recorder.close(reason.isEmpty ? text : "\(text) \(reason.prefix(60))")
        }
        if wasInSession && !gotEnded { unfinished += 1 }
    }

    // MARK: Receiving

    func webSocket(_ socket: WebSocketSocket, didReceive message: WebSocketMessage) {
        guard case .text(let buffer) = message else {
            recorder.error("binary message")
            return
        }
        let now = monotonicNanos()
        if plan.fullDecode {
            fullyDecoded(buffer, now: now)
            return
        }
        let handled: Bool = buffer.withUnsafeReadableBytes { raw in
            let scan = JSONScan(bytes: raw)
            if scan.stringEquals(after: "{\"type\":\"", "line") {
                guard broadcast(scan) else { return true }
                if let tag = Self.tag(scan) { lineArrived(tag, now: now) } else { recorder.foreign += 1 }
                return true
            }
            if scan.stringEquals(after: "{\"type\":\"", "stats") || scan.stringEquals(after: "{\"type\":\"", "participants")
                || scan.stringEquals(after: "{\"type\":\"", "recast") || scan.stringEquals(after: "{\"type\":\"", "recastAccepted")
                || scan.stringEquals(after: "{\"type\":\"", "hostChanged") {
                if broadcast(scan) { recorder.otherBroadcasts += 1 }
                return true
            }
            if scan.stringEquals(after: "{\"type\":\"", "ended") {
                if broadcast(scan) {
                    recorder.otherBroadcasts += 1
                    sessionEnded(cause: scan.string(after: "\"cause\":\"")?.value ?? "?")
                }
                return true
            }
            return false
        }
        if !handled { fullyDecoded(buffer, now: now) }
    }

    /// Everything that is not a high-volume broadcast (and everything with `--full-decode`).
    private func fullyDecoded(_ buffer: ByteBuffer, now: UInt64) {
        let decoded: ServerMessage
        do {
            decoded = try decoder.decode(Data(buffer.readableBytesView))
        } catch {
            recorder.error("undecodable message: \(error)")
            return
        }
        switch decoded {
        case .welcome(let welcome):
            welcomed = true
            recorder.welcome.record(Recorder.micros(connectStart, now))
            if let limit = welcome.limits["linesPerSecond"], plan.rate >= Double(limit) {
                recorder.error("rate \(plan.rate)/s is not under the hub's linesPerSecond \(limit)")
            }
            if welcome.resumableSessionId != nil { recorder.error("user still seated (resumableSessionId)") }
            phase = .lobby
            if seat == 0 { hostNext() } else { tryJoin() }
        case .joined(let joined):
            joinedSession(joined.session, now: now)
        case .left(let left):
            leftSession(reason: left.reason)
        case .error(let reply):
            refused(reply)
        case .line(let line):
            let bytes = Array(line.sessionId.utf8)
            guard trackFull(bytes, seq: line.seq) else { return }
            if let tag = SeatLedger.tag(in: line.line.textTranslated) { lineArrived(tag, now: now) } else { recorder.foreign += 1 }
        case .ended(let ended):
            guard trackFull(Array(ended.sessionId.utf8), seq: ended.seq) else { return }
            recorder.otherBroadcasts += 1
            sessionEnded(cause: ended.cause.rawValue)
        case .participants, .stats, .recast, .recastAccepted, .hostChanged:
            guard let id = decoded.sessionId, let seq = decoded.seq else { return }
            if trackFull(Array(id.utf8), seq: seq) { recorder.otherBroadcasts += 1 }
        case .pong, .scenarios, .resumed, .other:
            break
        }
    }

    // MARK: Broadcasts

    /// Checks a scanned broadcast's session and seq; true when it is new.
    private func broadcast(_ scan: JSONScan) -> Bool {
        guard phase == .inSession, !sessionIdBytes.isEmpty,
              let start = scan.find("\"sessionId\":\"") else {
            recorder.foreign += 1
            return false
        }
        let valueStart = start + 13
        guard valueStart + sessionIdBytes.count < scan.bytes.count else { recorder.foreign += 1; return false }
        for (k, byte) in sessionIdBytes.enumerated() where scan.bytes[valueStart + k] != byte {
            recorder.foreign += 1
            return false
        }
        guard let seq = scan.integer(after: "\"seq\":", from: valueStart)?.value else {
            recorder.error("broadcast without seq")
            return false
        }
        return track(seq)
    }

    private func trackFull(_ sessionId: [UInt8], seq: Int) -> Bool {
        guard phase == .inSession, sessionId == sessionIdBytes else {
            recorder.foreign += 1
            return false
        }
        return track(seq)
    }

    private func track(_ seq: Int) -> Bool {
        ledger.track(seq, into: recorder)
    }

    /// `[lt:<send ns>:<speaker index>:<n>]` in the raw message (in the line's `textTranslated`).
    private static func tag(_ scan: JSONScan) -> SeatLedger.Tag? {
        guard let at = scan.find("[lt:"), let sent = scan.integer(at: at + 4),
              sent.end < scan.bytes.count, let speaker = scan.integer(at: sent.end + 1) else { return nil }
        return SeatLedger.Tag(sentAt: UInt64(sent.value), speaker: speaker.value)
    }

    private func lineArrived(_ tag: SeatLedger.Tag, now: UInt64) {
        recorder.delivery(sentAt: tag.sentAt, now: now)
        if tag.speaker == index { recorder.acked += 1 }
    }

    // MARK: Session flow

    /// Host: start the next session.
    private func hostNext() {
        guard phase == .lobby, !stopping, monotonicNanos() < plan.rehostCutoff else { return }
        generation += 1
        phase = .requesting
        requestSentAt = monotonicNanos()
        send(ClientMessageEncoder.encode(.host(scenarioId: plan.scenarioId, maxPlayers: plan.players), id: "h\(generation)"))
    }

    /// Joiner: the host opened session `generation`.
    func offer(code: String, generation: Int, force: Bool) {
        guard generation > joinedGeneration || force else { return }
        pendingCode = code
        pendingGeneration = generation
        tryJoin()
    }

    private func tryJoin() {
        guard welcomed, phase == .lobby, !stopping, let code = pendingCode else { return }
        pendingCode = nil
        joinedGeneration = pendingGeneration
        lastJoinCode = code
        phase = .requesting
        requestSentAt = monotonicNanos()
        send(ClientMessageEncoder.encode(.join(code: code), id: "j\(pendingGeneration)"))
    }

    private func joinedSession(_ session: ServerMessage.Snapshot, now: UInt64) {
        recorder.join.record(Recorder.micros(requestSentAt, now))
        retries = 0
        phase = .inSession
        gotEnded = false
        sessionsJoined += 1
        sessionIdBytes = Array(session.sessionId.utf8)
        ledger.joined(session)
        if stopping {
            // The run ended while this request was in flight: close the session again.
            if seat == 0 { send(ClientMessageEncoder.encode(.end, id: "end")) }
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
        phase = .lobby
        sessionIdBytes = []
        if seat == 0 { hostNext() } else { tryJoin() }
    }

    private func refused(_ reply: ServerMessage.ErrorReply) {
        let ref = reply.ref ?? ""
        if ref.hasPrefix("s"), reply.code == "session_ended" || reply.code == "not_in_session" {
            recorder.lateRequests += 1  // a say that raced the end of its session
            return
        }
        if stopping, ref.hasPrefix("j") || ref == "end" {
            recorder.lateRequests += 1  // a join or end that raced the end of the run
            if phase == .requesting { phase = .lobby }
            return
        }
        let kind = ref.hasPrefix("h") ? "host" : ref.hasPrefix("j") ? "join" : ref.hasPrefix("s") ? "say" : ref == "end" ? "end" : "other"
        recorder.error("\(reply.code) (\(kind))")
        if phase == .requesting, kind == "host" || kind == "join" {
            phase = .lobby
            // `left` came, yet the hub may not have released the seat: try again shortly (3 times).
            if reply.code == "already_in_session", retries < 3 {
                retries += 1
                recorder.retries += 1
                let code = kind == "join" ? lastJoinCode : nil
                loop.scheduleTask(in: .milliseconds(200)) { [self] in
                    if kind == "host" {
                        generation -= 1
                        hostNext()
                    } else if let code, pendingCode == nil {
                        offer(code: code, generation: joinedGeneration + 0, force: true)
                    }
                }
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
            self.sayOne()
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
        send(ClientMessageEncoder.encode(.say(textNative: line.text, textTranslated: line.translation), id: "s\(line.number)"))
        recorder.sentOne(now: now)
    }

    // MARK: Ending

    /// Stop speaking; the host ends its session. Called on the loop at the end of the run.
    func finish() {
        stopping = true
        sayTimer?.cancel()
        sayTimer = nil
        pendingCode = nil
        if seat == 0, phase == .inSession, !gotEnded {
            send(ClientMessageEncoder.encode(.end, id: "end"))
        }
    }

    /// Close the connection normally.
    func closeNow() {
        closingByUs = true
        if phase == .inSession && !gotEnded { unfinished += 1; gotEnded = true }
        socket?.close(code: .normalClosure, reason: "load test done")
    }

    private func send(_ text: String) {
        socket?.send(text: text)
    }

    static func short(_ error: any Error) -> String {
        let text = "\(error)"
        return text.count > 80 ? String(text.prefix(80)) : text
    }
}
