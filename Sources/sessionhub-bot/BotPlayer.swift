import HubDomain
import HubProtocol
import SessionHubClient
import NIOCore
import WebSocket
import WebSocketTransport

/// One bot player: its connection to the hub (a new one after a drop) and everything it knows
/// of the session, kept in order as messages arrive.
///
/// The player checks what it receives — every broadcast's `seq` follows the previous one
/// (``SeqTracker``), a replay after `resume` is exactly the missed broadcasts, nothing follows
/// `ended` — and records anything wrong in ``problems``. It reacts on its own to other players'
/// lines (a recast, with ``Behaviour/recastProbability``) and to corrections of its own lines
/// (an `acceptRecast`, with ``Behaviour/acceptProbability``). ``BotTable`` decides when it
/// speaks, drops, resumes and ends.
actor BotPlayer {
    /// How a player reacts to the others.
    struct Behaviour: Sendable {
        /// Chance of correcting another player's line.
        var recastProbability: Double
        /// Chance of accepting a correction of one's own line.
        var acceptProbability: Double
    }

    /// Where a fresh connection stands.
    enum WelcomeStatus: Sendable {
        /// Not authenticated yet.
        case waiting
        /// Authenticated.
        case welcomed(ServerMessage.Welcome)
        /// Closed before `welcome` (a refused token closes with 1008 and a reason).
        case closed(String)
    }

    /// `bot-1`, `bot-2`, …: the name used before `welcome` says who the hub thinks we are.
    let label: String
    /// Where it connects: the hub given on the command line, or the node a redirect named.
    private(set) var url: WebSocketURL
    private let printer: TranscriptPrinter
    private let behaviour: Behaviour
    private var generator: SeededGenerator
    private let decoder = ServerMessageDecoder()
    private var token: String?

    // Connection
    private var connection: WebSocketClientConnection?
    private var generation = 0
    /// Connections opened so far (1 + reconnections).
    private(set) var connections = 0
    /// Whether the current connection is open.
    private(set) var isConnected = false
    /// Whether a close was asked for by the bot (a drop, or the end of the run).
    private var closingOnPurpose = false
    private var welcome: ServerMessage.Welcome?
    private var closeReason: String?

    // Session
    /// The hub's user id (from `welcome`); ``label`` until then.
    private(set) var userId: String
    /// The snapshot of `joined` (or of a `resumed` in snapshot mode).
    private(set) var session: ServerMessage.Snapshot?
    private var resumeToken: String?
    private(set) var tracker = SeqTracker()
    /// Lines spoken in the session so far, by anyone, as this player has seen them.
    private(set) var linesInSession = 0
    /// The `ended` broadcast, once received.
    private(set) var ended: ServerMessage.EndedBroadcast?
    /// Whether `left{reason:"ended"}` followed `ended`.
    private(set) var leftAfterEnd = false
    private(set) var replayRemaining = 0
    /// Every resume of this player.
    private(set) var resumes: [ResumeRecord] = []
    private(set) var presence: [PresenceChange] = []

    // Requests
    private var requestCounter = 0
    /// Lines this player has sent, for their `clientId`s (never reset: unique within a session).
    private var linesSent = 0
    private var pacer = LinePacer(rate: 5)
    private(set) var pending: [String: PendingRequest] = [:]
    private var outcomes: [String: RequestOutcome] = [:]
    /// When each unacknowledged `say` went on the wire, by request id.
    private var sayTimes: [String: ContinuousClock.Instant] = [:]
    /// Time from each own `say` going on the wire to its own copy of the `line` broadcast.
    private(set) var lineLatencies: [Duration] = []

    // Tallies
    /// Own lines the hub acknowledged.
    private(set) var linesSpoken = 0
    /// Own recasts the hub acknowledged.
    private(set) var recastsGiven = 0
    /// Corrections of own lines this player accepted (acknowledged).
    private(set) var recastsAccepted = 0
    /// Requests refused because the session was already over (a race with its end; not an error).
    private(set) var lateRequests = 0
    /// Requests sent again after `rate_limited`.
    private(set) var rateLimitedRetries = 0
    /// What went wrong, in order.
    private(set) var problems: [String] = []

    /// A player that will connect to `url`; `stream` separates its random choices from the others'.
    init(label: String, url: WebSocketURL, printer: TranscriptPrinter, behaviour: Behaviour, seed: UInt64, stream: UInt64) {
        self.label = label
        self.userId = label
        self.url = url
        self.printer = printer
        self.behaviour = behaviour
        self.generator = SeededGenerator(seed: seed, stream: stream)
    }

    // MARK: Connection

    /// Opens a connection (the first, or a new one after a drop) with `token`, or the token of
    /// the previous connection when nil.
    func connect(token newToken: String? = nil) async throws(BotFailure) {
        if let newToken { token = newToken }
        guard let token else { throw .setup("\(label) has no token") }
        generation += 1
        let current = generation
        welcome = nil
        closeReason = nil
        closingOnPurpose = false
        let opened: WebSocketClientConnection
        do {
            opened = try await BotConnection.open(url: url, token: token)
        } catch {
            throw .setup("\(label): cannot connect to \(url): \(error)")
        }
        connection = opened
        connections += 1
        isConnected = true
        Task {
            for await event in opened.events {
                self.receive(event, generation: current)
            }
        }
    }

    /// Whether `welcome` came on the current connection.
    func welcomeStatus() -> WelcomeStatus {
        if let welcome { return .welcomed(welcome) }
        if !isConnected { return .closed(closeReason ?? "connection closed") }
        return .waiting
    }

    /// Closes the connection as a lost phone would (close 1001 `going away`): the hub holds the
    /// seat for its grace window.
    func drop() {
        closingOnPurpose = true
        connection?.close(code: .goingAway, reason: "bot drop")
    }

    /// Closes the current connection and connects to `text` instead (the node a
    /// `session_elsewhere` or a `welcome` named), with the same token.
    func move(to text: String) async throws(BotFailure) {
        let target: WebSocketURL
        do {
            target = try WebSocketURL(parsing: text)
        } catch {
            throw .check("\(label) was sent to \(text.prefix(200)), which is not a WebSocket URL")
        }
        close()
        url = target
        try await connect()
    }

    /// Closes the connection normally (1000) at the end of the run.
    func close() {
        closingOnPurpose = true
        if isConnected { connection?.close() }
    }

    // MARK: Requests

    /// Sends `request` with a fresh id (unique for this player across its connections) and returns the id.
    @discardableResult
    private func send(_ request: ClientRequest, kind: PendingRequest.Kind) -> String {
        let id = register(request, kind: kind)
        if let text = pending[id]?.text {
            if kind == .say { sayTimes[id] = .now }
            connection?.send(text: text)
        }
        return id
    }

    /// Sends a `say`, `recast` or `acceptRecast` now, or later when the line rate requires it
    /// (``LinePacer``); it counts as unanswered from now on.
    @discardableResult
    private func sendPaced(_ request: ClientRequest, kind: PendingRequest.Kind) -> String {
        let slot = pacer.reserve()
        guard slot > .now else { return send(request, kind: kind) }
        let id = register(request, kind: kind)
        let current = generation
        Task {
            try? await Task.sleep(until: slot, clock: .continuous)
            self.sendReserved(id, generation: current)
        }
        return id
    }

    /// Records a request as pending under a fresh id and returns the id.
    private func register(_ request: ClientRequest, kind: PendingRequest.Kind) -> String {
        requestCounter += 1
        let id = "\(kind.rawValue)-\(requestCounter)"
        pending[id] = PendingRequest(kind: kind, text: ClientMessageEncoder.encode(request, id: id))
        outcomes[id] = .pending
        return id
    }

    /// Sends a paced request at its moment, unless its connection has gone meanwhile.
    private func sendReserved(_ id: String, generation: Int) {
        guard let request = pending[id] else { return }
        guard generation == self.generation, isConnected else {
            pending[id] = nil
            outcomes[id] = .refused(code: "not_sent", message: "the connection closed before the request could be sent")
            return
        }
        if request.kind == .say { sayTimes[id] = .now }
        connection?.send(text: request.text)
    }

    /// Sends a request again after `rate_limited`, if it is still unanswered on the same connection.
    private func resend(_ id: String, generation: Int) {
        guard generation == self.generation, let request = pending[id] else { return }
        connection?.send(text: request.text)
    }

    /// `startSolo`.
    func startSolo(scenarioId: String) -> String { send(.startSolo(scenarioId: scenarioId), kind: .start) }
    /// `host`.
    func host(scenarioId: String, maxPlayers: Int?) -> String { send(.host(scenarioId: scenarioId, maxPlayers: maxPlayers), kind: .start) }
    /// `join`.
    func join(code: String) -> String { send(.join(code: code), kind: .start) }
    /// `say`.
    /// Each line carries a `clientId` of its own (`line-1`, `line-2`, … for this player), so a line
    /// sent again after a failover is recognised by the hub (`duplicate_line`) instead of recorded twice.
    func say(_ line: BotLineScript.Line) -> String {
        linesSent += 1
        return sendPaced(.say(textNative: line.textNative, textTranslated: line.textTranslated,
                              clientId: "line-\(linesSent)"), kind: .say)
    }
    /// `end` (host only).
    func end() -> String { send(.end, kind: .end) }

    /// `leave`, when the player still holds a live seat on an open connection: after a failed run,
    /// so the hub releases the seat at once instead of holding it for the grace window. Nil when
    /// there is nothing to leave.
    func leaveIfSeated() -> String? {
        guard isConnected, session != nil, ended == nil, replayRemaining == 0 else { return nil }
        return send(.leave, kind: .leave)
    }

    /// `resume` with the newest resume token and the last applied seq; `othersSeq` is how far the
    /// other players of the run had got, which the replay must reach. Nil without a resume token.
    func resume(othersSeq: Int) -> String? {
        guard let resumeToken else { return nil }
        resumes.append(ResumeRecord(userId: userId, lastSeq: lastSeq, othersSeq: othersSeq))
        return send(.resume(resumeToken: resumeToken, lastSeq: lastSeq), kind: .resume)
    }

    /// Whether a `joined` or `resumed` gave it a token to resume with.
    var hasResumeToken: Bool { resumeToken != nil }

    /// What became of request `id`.
    func outcome(of id: String) -> RequestOutcome { outcomes[id] ?? .pending }

    // MARK: Receiving

    private func receive(_ event: WebSocketClientConnection.Event, generation: Int) {
        guard generation == self.generation else { return }
        switch event {
        case .message(.text(let buffer)):
            handle(String(buffer: buffer))
        case .message(.binary):
            problem("received a binary message")
        case .closed(let code, let reason):
            isConnected = false
            let text = "\(code.map { String($0.rawValue) } ?? "no close frame")\(reason.isEmpty ? "" : " \(reason)")"
            closeReason = text
            if !closingOnPurpose, welcome != nil, !leftAfterEnd {
                problem("the hub closed the connection (\(text))")
            }
        }
    }

    private func handle(_ text: String) {
        let message: ServerMessage
        do {
            message = try decoder.decode(text)
        } catch {
            return problem("undecodable message (\(error)): \(text.prefix(200))")
        }
        if let seq = message.seq {
            guard apply(seq, of: message) else { return }
            printer.show(message)
        }
        switch message {
        case .welcome(let m):
            welcome = m
            if let rate = m.limits["linesPerSecond"] { pacer.adopt(rate: rate) }
            userId = m.userId
        case .joined(let m):
            session = m.session
            resumeToken = m.resumeToken
            tracker.restart(after: m.session.seq)
            linesInSession = m.session.lines.count
            complete(m.ref)
            let you = m.session.you
            printer.note("· \(userId) \(you.mode == .client ? "joined" : "started") the session as \(you.roleName) (\(you.mode.rawValue)), snapshot seq \(m.session.seq)")
        case .resumed(let m):
            resumeToken = m.resumeToken
            if let snapshot = m.session {
                session = snapshot
                tracker.restart(after: snapshot.seq)
                linesInSession = snapshot.lines.count
            }
            replayRemaining = m.mode == .replay ? m.replayed : 0
            if var record = resumes.popLast() {
                record.mode = m.mode.rawValue
                record.replayed = m.replayed
                resumes.append(record)
            }
            printer.note("· \(userId) resumed from seq \(resumes.last?.lastSeq ?? 0): \(m.mode.rawValue), \(m.replayed) broadcasts replayed")
            if replayRemaining == 0 { finishReplay() }
            complete(m.ref)
        case .line(let m):
            linesInSession += 1
            if m.line.speakerId == userId {
                if let ref = m.ref, let sent = sayTimes.removeValue(forKey: ref), pending[ref]?.kind == .say {
                    lineLatencies.append(.now - sent)
                }
                if acknowledge(m.ref, .say) { linesSpoken += 1 }
            } else {
                considerRecast(of: m.line)
            }
        case .recast(let m):
            if m.recast.authorId == userId, acknowledge(m.ref, .recast) { recastsGiven += 1 }
            if m.recast.speakerId == userId { considerAccepting(m.recast) }
        case .recastAccepted(let m):
            if m.userId == userId, acknowledge(m.ref, .acceptRecast) { recastsAccepted += 1 }
        case .participants(let m):
            presence.append(m.change)
        case .ended(let m):
            ended = m
            _ = acknowledge(m.ref, .end)
        case .left(let m):
            if m.reason == "ended", ended != nil {
                leftAfterEnd = true
            } else if m.reason == "left", let ref = m.ref, pending[ref]?.kind == .leave {
                complete(ref)
            } else {
                problem("unexpected left{reason:\(m.reason)}")
            }
        case .error(let m):
            refused(m)
        case .hostChanged, .stats, .pong, .scenarios:
            break
        case .other(let type):
            printer.note("· \(userId) skips a message of unknown type \(type)")
        }
    }

    /// Checks a broadcast's seq; false when it must not be applied (a duplicate).
    private func apply(_ seq: Int, of message: ServerMessage) -> Bool {
        if let known = session?.sessionId, let sessionId = message.sessionId, sessionId != known {
            problem("broadcast #\(seq) of another session (\(sessionId))")
            return false
        }
        if ended != nil { problem("broadcast #\(seq) (\(message.type)) after ended") }
        switch tracker.record(seq) {
        case .next:
            break
        case .gap(let expected, let received):
            problem("seq gap: expected #\(expected), received #\(received) (\(message.type))")
        case .duplicate(let duplicate):
            problem("duplicate or out-of-order seq #\(duplicate) (\(message.type)) after #\(lastSeq)")
            return false
        case .beforeSnapshot(let early):
            problem("broadcast #\(early) before joined")
            return false
        }
        if replayRemaining > 0, var record = resumes.popLast() {
            record.replayedSeqs.append(seq)
            resumes.append(record)
            replayRemaining -= 1
            if replayRemaining == 0 { finishReplay() }
        }
        return true
    }

    /// Checks the replay that just finished: exactly lastSeq+1 … lastSeq+replayed, reaching as far
    /// as the other players had got.
    private func finishReplay() {
        guard var record = resumes.popLast() else { return }
        let expected = record.replayed > 0 ? Array(record.lastSeq + 1...record.lastSeq + record.replayed) : []
        let reach = record.mode == "snapshot" ? (session?.seq ?? 0) : record.lastSeq + record.replayed
        record.complete = record.replayedSeqs == expected && reach >= record.othersSeq
        resumes.append(record)
        if record.replayedSeqs != expected {
            problem("replay after lastSeq \(record.lastSeq) was \(record.replayedSeqs), expected \(expected)")
        } else if reach < record.othersSeq {
            problem("replay stopped at #\(reach) but the others had already applied #\(record.othersSeq)")
        } else {
            let range = expected.isEmpty ? "nothing to replay" : "#\(expected[0])–#\(expected[expected.count - 1])"
            printer.note("· \(userId)'s replay is complete: \(range), no gap, no duplicate")
        }
    }

    /// Marks request `ref` answered, when it is this player's own request of `kind`.
    private func acknowledge(_ ref: String?, _ kind: PendingRequest.Kind) -> Bool {
        guard let ref, pending[ref]?.kind == kind else { return false }
        complete(ref)
        return true
    }

    private func complete(_ ref: String?) {
        guard let ref, pending.removeValue(forKey: ref) != nil else { return }
        outcomes[ref] = .done
    }

    /// An `error`: a retry after `rate_limited`, a late request after the session's end, or a problem.
    private func refused(_ error: ServerMessage.ErrorReply) {
        guard let ref = error.ref, let request = pending[ref] else {
            return problem("error \(error.code): \(error.message)")
        }
        if error.code == "rate_limited", request.retries < 20 {
            pending[ref]?.retries += 1
            rateLimitedRetries += 1
            let current = generation
            Task {
                try? await Task.sleep(for: .milliseconds(250))
                self.resend(ref, generation: current)
            }
            return
        }
        pending[ref] = nil
        if error.code == "session_elsewhere" {
            outcomes[ref] = .redirected(url: error.url, retryAfter: max(1, error.retryAfter ?? 1))
            return
        }
        outcomes[ref] = .refused(code: error.code, message: error.message)
        let raced = ["session_ended", "not_in_session"].contains(error.code) && [.say, .recast, .acceptRecast].contains(request.kind)
        if raced {
            lateRequests += 1
            printer.note("· \(userId)'s \(request.kind.rawValue) came after the end: \(error.code)")
        } else if [.recast, .acceptRecast].contains(request.kind) {
            problem("\(request.kind.rawValue) refused: \(error.code): \(error.message)")
        }
        // Other refusals (start, resume, say, end) are the table's to judge: it waits for their outcome.
    }

    // MARK: Reactions

    /// Whether the session is still open for new recasts and acceptances as far as this player knows.
    private var canReact: Bool {
        guard isConnected, replayRemaining == 0, ended == nil, let goal = session?.scenario.goal.lines else { return false }
        return linesInSession < goal
    }

    private func considerRecast(of line: DialogLine) {
        guard canReact, generator.chance(behaviour.recastProbability) else { return }
        let types = BotRecastComposer.issueTypes(using: &generator)
        let correction = BotRecastComposer.correction(of: line.textNative, issueTypes: types)
        sendPaced(.recast(lineId: line.id, correctedText: correction.correctedText, explanation: correction.explanation,
                          issueTypes: correction.issueTypes), kind: .recast)
    }

    private func considerAccepting(_ recast: Recast) {
        guard canReact, !recast.accepted, generator.chance(behaviour.acceptProbability) else { return }
        sendPaced(.acceptRecast(recastId: recast.id), kind: .acceptRecast)
    }

    private func problem(_ text: String) {
        problems.append(text)
        printer.note("! \(userId): \(text)")
    }

    /// Records a problem found by the table (e.g. a missing `ended`).
    func record(problem text: String) {
        problem(text)
    }
}
