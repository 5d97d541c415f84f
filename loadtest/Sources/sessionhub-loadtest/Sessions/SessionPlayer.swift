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

/// One player's connection to `/ws`, a lean endpoint that sends its requests as JSON and scans
/// the session's broadcasts without a full decode (`sessions --player lean`); the seat's flow is
/// its ``SeatFlow``. All of its state lives on its event loop: the endpoint callbacks run there,
/// and everything else reaches it with `loop.execute`.
final class SessionPlayer: WebSocketEndpoint, LoadPlayer, @unchecked Sendable {
    let index: Int
    let seat: Int
    let userId: String
    let loop: any EventLoop
    let recorder: Recorder
    let plan: SessionsPlan

    var flow: SeatFlow
    let sayClock: SayClock
    /// Whether the say timer runs (on ``sayClock``): from the seat's first session on; between
    /// sessions its ticks find none.
    var speaking = false
    private var socket: WebSocketSocket?
    private var sessionIdBytes: [UInt8] = []
    private let decoder = ServerMessageDecoder()
    private let leanDecoder = JSONDecoder()

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
        let configuration = WebSocketClientConfiguration(
            compression: deflate ? .default : PerMessageDeflateConfiguration(isEnabled: false),
            headers: [(name: "Authorization", value: "Bearer \(token)")])
        do {
            _ = try await WebSocketClient.connect(to: url, configuration: configuration, group: loop) { self }
        } catch {
            loop.execute { self.flow.connectFailed(error) }
        }
    }

    func webSocketDidOpen(_ socket: WebSocketSocket) {
        self.socket = socket
        recorder.connect.record(Recorder.micros(flow.connectStart, monotonicNanos()))
    }

    func webSocketDidClose(_ socket: WebSocketSocket, code: WebSocketCloseCode?, reason: String) {
        self.socket = nil
        perform(flow.closed(code: code.map { Int($0.rawValue) }, reason: reason))
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
            if !plan.fullDecode, scan.stringEquals(after: "{\"type\":\"", "joined") {
                return leanJoined(buffer, now: now)
            }
            if scan.stringEquals(after: "{\"type\":\"", "ended") {
                if broadcast(scan) {
                    recorder.otherBroadcasts += 1
                    flow.ended(cause: scan.string(after: "\"cause\":\"")?.value ?? "?")
                }
                return true
            }
            return false
        }
        if !handled { fullyDecoded(buffer, now: now) }
    }

    /// A `joined` read without its scenario, participants and transcript, once this scenario
    /// and role's hints are known (``JoinedHintCache``); false when they are not yet (the
    /// caller decodes it fully then, which keeps them).
    private func leanJoined(_ buffer: ByteBuffer, now: UInt64) -> Bool {
        guard let joined = try? leanDecoder.decode(LeanJoined.self, from: Data(buffer.readableBytesView)),
              let hints = JoinedHintCache.shared.hints(for: joined.hintKey) else { return false }
        sessionIdBytes = Array(joined.session.sessionId.utf8)
        perform(flow.joined(JoinedSession(seq: joined.session.seq, joinCode: joined.session.joinCode, hints: hints), now: now))
        return true
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
            perform(flow.welcomed(welcome, now: now))
        case .joined(let joined):
            sessionIdBytes = Array(joined.session.sessionId.utf8)
            let session = JoinedSession(joined.session)
            JoinedHintCache.shared.keep(session.hints,
                                        for: JoinedHintCache.key(scenario: joined.session.scenario.id, role: joined.session.you.roleName))
            perform(flow.joined(session, now: now))
        case .left(let left):
            sessionIdBytes = []
            perform(flow.left(reason: left.reason))
        case .error(let reply):
            refused(reply)
        case .line(let line):
            let bytes = Array(line.sessionId.utf8)
            guard trackFull(bytes, seq: line.seq) else { return }
            if let tag = SeatLedger.tag(in: line.line.textTranslated) { lineArrived(tag, now: now) } else { recorder.foreign += 1 }
        case .ended(let ended):
            guard trackFull(Array(ended.sessionId.utf8), seq: ended.seq) else { return }
            recorder.otherBroadcasts += 1
            flow.ended(cause: ended.cause.rawValue)
        case .participants, .stats, .recast, .recastAccepted, .hostChanged:
            guard let id = decoded.sessionId, let seq = decoded.seq else { return }
            if trackFull(Array(id.utf8), seq: seq) { recorder.otherBroadcasts += 1 }
        case .pong, .scenarios, .resumed, .other:
            break
        }
    }

    /// An error reply: the request it answers is read from its reference (`h…`, `j…`, `s…`, `end`).
    private func refused(_ reply: ServerMessage.ErrorReply) {
        let ref = reply.ref ?? ""
        let kind: SeatFlow.Request.Kind =
            ref.hasPrefix("h") ? .host : ref.hasPrefix("j") ? .join : ref.hasPrefix("s") ? .say : ref == "end" ? .end : .other
        perform(flow.refused(code: reply.code, kind: kind))
    }

    // MARK: Broadcasts

    /// Checks a scanned broadcast's session and seq; true when it is new.
    private func broadcast(_ scan: JSONScan) -> Bool {
        guard flow.inSession, !sessionIdBytes.isEmpty,
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
        return flow.track(seq)
    }

    private func trackFull(_ sessionId: [UInt8], seq: Int) -> Bool {
        guard flow.inSession, sessionId == sessionIdBytes else {
            recorder.foreign += 1
            return false
        }
        return flow.track(seq)
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

    // MARK: Requests

    /// Sends a request of the flow as JSON, referenced for its error reply (``refused(_:)``).
    func send(_ request: SeatFlow.Request) {
        let (message, ref): (ClientRequest, String) = switch request {
        case .host(let generation): (.host(scenarioId: plan.scenarioId, maxPlayers: plan.players), "h\(generation)")
        case .join(let code, let generation): (.join(code: code), "j\(generation)")
        case .say(let text, let translation, let number): (.say(textNative: text, textTranslated: translation), "s\(number)")
        case .end: (.end, "end")
        }
        socket?.send(text: ClientMessageEncoder.encode(message, id: ref))
    }

    /// Close the connection normally.
    func closeNow() {
        flow.closing()
        socket?.close(code: .normalClosure, reason: "load test done")
    }

    static func short(_ error: any Error) -> String {
        let text = "\(error)"
        return text.count > 80 ? String(text.prefix(80)) : text
    }
}
