import HubDomain
import HubProtocol
import SessionHubClient
import WebSocketTransport

/// One bot player: a ``SessionHubClient`` (its connection, requests, reconnects and resume)
/// and the bot's own view of the session, kept in order as the client's `events` arrive.
///
/// The player checks what its client hands on — every broadcast's `seq` follows the previous one
/// (``SeqTracker``), a replay after a resume is exactly the missed broadcasts, nothing follows
/// `ended` — and records anything wrong in ``problems``. It reacts on its own to other players'
/// lines (a recast, with ``Behaviour/recastProbability``) and to corrections of its own lines
/// (an `acceptRecast`, with ``Behaviour/acceptProbability``). ``BotTable`` decides when it
/// speaks, drops, comes back and ends.
///
/// Requests are the client's typed calls, each run in a task of its own; the table follows them
/// by the bot's own request ids (``outcome(of:)``). Pacing to the hub's line rate and retries
/// after `rate_limited` are the bot's.
actor BotPlayer {
    /// How a player reacts to the others.
    struct Behaviour: Sendable {
        /// Chance of correcting another player's line.
        var recastProbability: Double
        /// Chance of accepting a correction of one's own line.
        var acceptProbability: Double
    }

    /// Where the first connection stands.
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
    /// The hub given on the command line (a cluster's front: the client follows redirects).
    let url: WebSocketURL
    private let printer: TranscriptPrinter
    private let behaviour: Behaviour
    private var generator: SeededGenerator
    /// Mints a token for every connection after the first.
    private let mint: @Sendable () async throws -> String

    // Connection
    private var client: SessionHubClient?
    /// Connections opened so far (every `welcome`: 1 + redirects + reconnections).
    private(set) var connections = 0
    /// Whether the client is connected (not dropped, reconnecting or closed).
    private(set) var isConnected = false
    /// Whether a close was asked for by the bot (the end of the run).
    private var closingOnPurpose = false
    /// Whether the bot dropped the connection and has not let it come back yet.
    private var droppedOnPurpose = false
    /// Ends the outage of a drop (the client reconnects once it finishes).
    private var outage: AsyncStream<Void>.Continuation?
    private var welcome: ServerMessage.Welcome?
    private var closeReason: String?

    // Session
    /// The hub's user id (from `welcome`); ``label`` until then.
    private(set) var userId: String
    /// The snapshot of `joined` (or of a `resumed` in snapshot mode).
    private(set) var session: ServerMessage.Snapshot?
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
    /// The hub's final refusal of the client's `resume` after a drop (`code: message`), if it refused.
    private(set) var resumeRefusal: String?
    private(set) var presence: [PresenceChange] = []

    // Requests
    private var requestCounter = 0
    /// Lines this player has said, for their `clientId`s (never reset: unique within a session).
    private var linesSent = 0
    private var pacer = LinePacer(rate: 5)
    /// Requests whose call has not returned, by the bot's request id.
    private(set) var pending: [String: PendingRequest] = [:]
    private var outcomes: [String: RequestOutcome] = [:]
    /// A start request (`startSolo`, `host`, `join`) whose call returned, done once `joined` is seen.
    private var startAwaitingJoined: String?
    /// Time from each own `say` going to the client to its return (its own `line` broadcast arrived).
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

    /// A player that will connect to `url`; `stream` separates its random choices from the
    /// others'; `mint` gives a token for each reconnection.
    init(label: String, url: WebSocketURL, printer: TranscriptPrinter, behaviour: Behaviour, seed: UInt64, stream: UInt64,
         mint: @escaping @Sendable () async throws -> String) {
        self.label = label
        self.userId = label
        self.url = url
        self.printer = printer
        self.behaviour = behaviour
        self.generator = SeededGenerator(seed: seed, stream: stream)
        self.mint = mint
    }

    // MARK: Connection

    /// Makes the player's client, with `token` for its first connection, and connects it; the
    /// outcome is in ``welcomeStatus()``.
    func connect(token: String) async throws(BotFailure) {
        let first = TokenOnce(token)
        let mint = self.mint
        let made: SessionHubClient
        do {
            made = try SessionHubClient(url: url.description, requestTimeout: .seconds(15),
                                        reconnect: ReconnectPolicy(initialDelay: .milliseconds(50), maxDelay: .seconds(1))) {
                if let token = await first.take() { return token }
                return try await mint()
            }
        } catch {
            throw .setup("\(label): \(error)")
        }
        client = made
        Task { for await message in made.events { self.handle(message) } }
        Task { for await state in made.states { self.changed(to: state) } }
        do {
            let welcomed = try await made.connect()
            if welcome == nil { adopt(welcomed) }
        } catch {
            closeReason = "\(error)"
        }
    }

    /// Whether `welcome` came on the first connection.
    func welcomeStatus() -> WelcomeStatus {
        if let welcome { return .welcomed(welcome) }
        if let closeReason { return .closed(closeReason) }
        return .waiting
    }

    /// Cuts the connection as a lost phone would (``SessionHubClient/dropConnection(until:)``):
    /// the hub holds the seat for its grace window; the client comes back once ``resume(othersSeq:)``
    /// ends the outage.
    func drop() async {
        guard let client else { return }
        let (back, signal) = AsyncStream.makeStream(of: Void.self)
        outage = signal
        droppedOnPurpose = true
        await client.dropConnection { for await _ in back { return } }
    }

    /// Closes the connection normally (1000) at the end of the run.
    func close() async {
        closingOnPurpose = true
        outage?.finish()
        outage = nil
        await client?.close()
    }

    // MARK: Requests

    /// A fresh request id of `kind` (unique for this player), recorded as pending.
    private func register(_ kind: PendingRequest.Kind) -> String {
        requestCounter += 1
        let id = "\(kind.rawValue)-\(requestCounter)"
        pending[id] = PendingRequest(kind: kind)
        outcomes[id] = .pending
        return id
    }

    /// Runs `call` on the client for request `id` (after `delay` when paced), then records its outcome.
    private func run(_ id: String, at slot: ContinuousClock.Instant? = nil,
                     _ call: @escaping @Sendable (SessionHubClient) async throws -> Void) {
        guard let client else {
            return finish(id, .refused(code: "not_sent", message: "not connected"))
        }
        Task {
            if let slot, slot > .now { try? await Task.sleep(until: slot, clock: .continuous) }
            await self.attempt(id, client: client, call)
        }
    }

    private func attempt(_ id: String, client: SessionHubClient, _ call: @escaping @Sendable (SessionHubClient) async throws -> Void) async {
        guard let request = pending[id] else { return }
        let started = ContinuousClock.now
        do {
            try await call(client)
            succeeded(id, request.kind, after: .now - started)
        } catch SessionHubClientError.refused(let code, let message, _) {
            if code == "rate_limited", request.retries < 20 {
                pending[id]?.retries += 1
                rateLimitedRetries += 1
                Task {
                    try? await Task.sleep(for: .milliseconds(250))
                    await self.attempt(id, client: client, call)
                }
                return
            }
            refused(id, request.kind, code: code, message: message)
        } catch SessionHubClientError.elsewhere(_, let url, let retryAfter) {
            finish(id, .redirected(url: url, retryAfter: max(1, retryAfter ?? 1)))
        } catch {
            finish(id, .refused(code: "failed", message: "\(error)"))
        }
    }

    private func succeeded(_ id: String, _ kind: PendingRequest.Kind, after latency: Duration) {
        switch kind {
        case .say:
            linesSpoken += 1
            lineLatencies.append(latency)
        case .recast: recastsGiven += 1
        case .acceptRecast: recastsAccepted += 1
        case .start:
            // Done once this player has seen its `joined` (its role, its snapshot).
            if session == nil {
                startAwaitingJoined = id
                return
            }
        case .end, .leave: break
        }
        finish(id, .done)
    }

    private func finish(_ id: String, _ outcome: RequestOutcome) {
        pending[id] = nil
        outcomes[id] = outcome
    }

    /// A refusal: a late request after the session's end, a problem, or the table's to judge.
    private func refused(_ id: String, _ kind: PendingRequest.Kind, code: String, message: String) {
        finish(id, .refused(code: code, message: message))
        let raced = ["session_ended", "not_in_session"].contains(code) && [.say, .recast, .acceptRecast].contains(kind)
        if raced {
            lateRequests += 1
            printer.note("· \(userId)'s \(kind.rawValue) came after the end: \(code)")
        } else if [.recast, .acceptRecast].contains(kind) {
            problem("\(kind.rawValue) refused: \(code): \(message)")
        }
        // Other refusals (start, say, end) are the table's to judge: it waits for their outcome.
    }

    /// `startSolo`.
    func startSolo(scenarioId: String) -> String {
        let id = register(.start)
        run(id) { _ = try await $0.startSolo(scenarioId: scenarioId) }
        return id
    }

    /// `host`.
    func host(scenarioId: String, maxPlayers: Int?) -> String {
        let id = register(.start)
        run(id) { _ = try await $0.host(scenarioId: scenarioId, maxPlayers: maxPlayers) }
        return id
    }

    /// `join` (the client follows `session_elsewhere` to the node that owns the session).
    func join(code: String) -> String {
        let id = register(.start)
        run(id) { _ = try await $0.join(code: code) }
        return id
    }

    /// `say`, paced to the hub's line rate (``LinePacer``); it counts as unanswered from now on.
    /// Each line carries a `clientId` of its own (`line-1`, `line-2`, … for this player), so a line
    /// sent again (after a drop, or after `rate_limited`) is recorded once.
    func say(_ line: BotLineScript.Line) -> String {
        linesSent += 1
        let clientId = "line-\(linesSent)"
        let id = register(.say)
        let (text, translation) = (line.textNative, line.textTranslated)
        run(id, at: pacer.reserve()) { _ = try await $0.say(text, translation: translation, clientId: clientId) }
        return id
    }

    /// `end` (host only).
    func end() -> String {
        let id = register(.end)
        run(id) { _ = try await $0.end() }
        return id
    }

    /// `leave`, when the player still holds a live seat: after a failed run, so the hub releases
    /// the seat at once instead of holding it for the grace window. Nil when there is nothing to leave.
    func leaveIfSeated() -> String? {
        guard isConnected, session != nil, ended == nil, replayRemaining == 0 else { return nil }
        let id = register(.leave)
        run(id) { try await $0.leave() }
        return id
    }

    /// Ends the outage of a ``drop()``: the client reconnects and resumes from its model's `seq`
    /// (the last seq this player applied); `othersSeq` is how far the other players of the run
    /// had got, which the replay must reach. False when the player was not dropped.
    func resume(othersSeq: Int) -> Bool {
        guard let outage else { return false }
        resumes.append(ResumeRecord(userId: userId, lastSeq: lastSeq, othersSeq: othersSeq))
        self.outage = nil
        outage.finish()
        return true
    }

    /// Whether the last resume's `resumed` came and its replay is applied.
    var resumeFinished: Bool {
        guard let record = resumes.last else { return false }
        return record.mode != nil && replayRemaining == 0
    }

    /// What became of request `id`.
    func outcome(of id: String) -> RequestOutcome { outcomes[id] ?? .pending }

    // MARK: Receiving

    private func changed(to state: ConnectionState) {
        switch state {
        case .connected:
            isConnected = true
        case .idle, .connecting:
            isConnected = false
        case .reconnecting:
            if isConnected, !droppedOnPurpose, !closingOnPurpose {
                problem("the connection dropped; the client is reconnecting")
            }
            isConnected = false
        case .closed(let code, let reason):
            let text = "\(code.map(String.init) ?? "no close frame")\(reason.isEmpty ? "" : " \(reason)")"
            if closeReason == nil { closeReason = text }
            if isConnected, !closingOnPurpose, !leftAfterEnd {
                problem("the hub closed the connection (\(text))")
            }
            isConnected = false
        }
    }

    private func adopt(_ m: ServerMessage.Welcome) {
        welcome = m
        if let rate = m.limits["linesPerSecond"] { pacer.adopt(rate: rate) }
        userId = m.userId
    }

    private func handle(_ message: ServerMessage) {
        if let seq = message.seq {
            guard apply(seq, of: message) else { return }
            printer.show(message)
        }
        switch message {
        case .welcome(let m) where m.ref == nil:
            connections += 1
            adopt(m)
            if droppedOnPurpose, let held = m.resumableSessionId, let sessionId = session?.sessionId, held != sessionId {
                problem("welcome after reconnecting offers session \(held), not \(sessionId)")
            }
        case .welcome:
            break
        case .joined(let m):
            session = m.session
            tracker.restart(after: m.session.seq)
            linesInSession = m.session.lines.count
            let you = m.session.you
            printer.note("· \(userId) \(you.mode == .client ? "joined" : "started") the session as \(you.roleName) (\(you.mode.rawValue)), snapshot seq \(m.session.seq)")
            if let id = startAwaitingJoined {
                startAwaitingJoined = nil
                finish(id, .done)
            }
        case .resumed(let m):
            droppedOnPurpose = false
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
            } else {
                problem("resumed without a drop")
            }
            printer.note("· \(userId) resumed from seq \(resumes.last?.lastSeq ?? 0): \(m.mode.rawValue), \(m.replayed) broadcasts replayed")
            if replayRemaining == 0 { finishReplay() }
        case .line(let m):
            linesInSession += 1
            if m.line.speakerId != userId { considerRecast(of: m.line) }
        case .recast(let m):
            if m.recast.speakerId == userId { considerAccepting(m.recast) }
        case .participants(let m):
            presence.append(m.change)
        case .ended(let m):
            ended = m
        case .left(let m):
            if m.reason == "ended", ended != nil {
                leftAfterEnd = true
            } else if m.ref != nil || ["moved", "handedOver"].contains(m.reason) {
                break  // the answer to our `leave`, or the session moving nodes (the client follows it)
            } else {
                problem("unexpected left{reason:\(m.reason)}")
            }
        case .error(let m):
            // Answers to requests are the calls' to report; an unasked error is a problem. While
            // the player is coming back, the only request is the client's `resume`.
            if m.ref == nil {
                problem("error \(m.code): \(m.message)")
            } else if droppedOnPurpose, resumes.last?.mode == nil, Self.finalResumeRefusals.contains(m.code) {
                resumeRefusal = "\(m.code): \(m.message)"
            }
        case .recastAccepted, .hostChanged, .stats, .pong, .scenarios:
            break
        case .other(let type):
            if type != ServerMessageType.historyUpdated.rawValue { printer.note("· \(userId) skips a message of unknown type \(type)") }
        }
    }

    /// Refusals of `resume` after which the client gives the seat up (it tries others again).
    private static let finalResumeRefusals: Set<String> = ["invalid_resume_token", "invalid_last_seq", "session_ended", "not_in_session"]

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
        let id = register(.recast)
        let (lineId, text, explanation, issues) = (line.id, correction.correctedText, correction.explanation, correction.issueTypes)
        run(id, at: pacer.reserve()) {
            _ = try await $0.recast(lineId: lineId, correctedText: text, explanation: explanation, issueTypes: issues)
        }
    }

    private func considerAccepting(_ recast: Recast) {
        guard canReact, !recast.accepted, generator.chance(behaviour.acceptProbability) else { return }
        let id = register(.acceptRecast)
        let recastId = recast.id
        run(id, at: pacer.reserve()) { try await $0.acceptRecast(recastId) }
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
