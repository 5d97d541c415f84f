import HubDomain
import HubProtocol
import NIOCore

/// The seat flow both players of a sessions run (``SessionPlayer``, ``ClientSessionPlayer``)
/// play: connect, host (seat 0) or join the slot's sessions (above), speak at the plan's rate,
/// and stop at the end of the run. It owns the seat's phase, the slot's generations, the
/// pending join, the retries and the ``SeatLedger``, and counts into the loop's recorder what
/// both count the same way (join and welcome times, late requests, retries, errors, unfinished
/// sessions); each transition returns the ``Action`` the player carries out with its own
/// transport (a raw socket's JSON, or a `SessionHubClient` call) and its loop's timers.
///
/// Touched on the player's loop only.
struct SeatFlow {
    enum Phase: Equatable {
        case connecting
        /// Welcomed, in no session (and asking for none).
        case lobby
        /// A `host` or `join` is on its way.
        case requesting
        case inSession
        case closed
    }

    /// A request of the seat.
    enum Request: Equatable {
        /// `host` for the slot's session `generation` (reference `h<generation>`).
        case host(generation: Int)
        /// `join` with `code`, the slot's session `generation` (reference `j<generation>`).
        case join(code: String, generation: Int)
        /// `say` with the line (reference `s<number>`); it is already counted as sent.
        case say(text: String, translation: String, number: Int)
        /// Host: `end` (reference `end`).
        case end

        var kind: Kind {
            switch self {
            case .host: return .host
            case .join: return .join
            case .say: return .say
            case .end: return .end
            }
        }

        /// What a request is, named as an error count names it (`already_in_session (join)`).
        enum Kind: String {
            case host
            case join
            case say
            case end
            /// An error reply that answers none of the seat's requests.
            case other
        }
    }

    /// A refused `host` or `join` to try again (``retry(_:)``).
    enum Retry: Equatable {
        case host
        case join(code: String)
    }

    /// What the player does next.
    enum Action: Equatable {
        case none
        /// Send the request (``LoadPlayer/send(_:)``).
        case send(Request)
        /// Start the say timer unless it runs (``sayTimes()``); each tick asks ``sayDue(now:)``.
        case startSpeaking
        /// Cancel the say timer.
        case stopSpeaking
        /// Hand `retry` to ``retry(_:)`` after `delay`.
        case retryLater(Retry, after: TimeAmount)
    }

    /// The seat's player index (the speaker in its lines' tags).
    let index: Int
    /// 0: the host of its slot; above: a joiner.
    let seat: Int
    let plan: SessionsPlan
    /// Monotonic ns when the connect started (for the connect and welcome times).
    let connectStart: UInt64
    private let slot: SessionSlot
    private let recorder: Recorder

    private(set) var phase = Phase.connecting
    private var ledger = SeatLedger()
    private var rng: SplitMix64
    private var requestSentAt: UInt64 = 0
    /// The slot's session this host asked for last.
    private var generation = 0
    /// The slot's session this joiner asked to join last.
    private var joinedGeneration = 0
    /// A session the host opened that this joiner is to join once in the lobby.
    private var pendingCode: String?
    private var pendingGeneration = 0
    private var lastJoinCode: String?
    /// `already_in_session` refusals tried again since the last `joined`.
    private var retries = 0
    /// The run is over: no new request.
    private var stopping = false
    private var closingByUs = false
    /// The current session's `ended` came (true outside of sessions).
    private var gotEnded = true

    /// Sessions joined (or hosted), over the run.
    private(set) var sessionsJoined = 0
    /// Sessions this seat left, or was in when its connection closed or the run closed it, before
    /// their `ended` came.
    private(set) var unfinished = 0

    init(index: Int, seat: Int, plan: SessionsPlan, slot: SessionSlot, recorder: Recorder, connectStart: UInt64) {
        self.index = index
        self.seat = seat
        self.plan = plan
        self.connectStart = connectStart
        self.slot = slot
        self.recorder = recorder
        self.rng = SplitMix64(seed: plan.seed &+ UInt64(index) &* 0x9E37_79B9)
    }

    // MARK: Reading

    /// Whether nothing more is expected on this connection (for the end of the run).
    var settled: Bool {
        switch phase {
        case .closed: return true
        case .lobby: return pendingCode == nil || stopping
        default: return false
        }
    }

    var isClosed: Bool { phase == .closed }
    /// Broadcasts count only in a session (others are foreign).
    var inSession: Bool { phase == .inSession }
    /// Broadcasts missing on this connection, over the run.
    var lost: Int { ledger.lost }
    /// Broadcasts that came twice on this connection, over the run.
    var duplicated: Int { ledger.duplicated }

    // MARK: Connecting

    /// The connection could not be opened.
    mutating func connectFailed(_ error: any Error) {
        recorder.connectFailures += 1
        recorder.error("connect: \(SessionPlayer.short(error))")
        phase = .closed
    }

    /// `welcome` came at `now`: to the lobby, and host or join.
    mutating func welcomed(_ welcome: ServerMessage.Welcome, now: UInt64) -> Action {
        recorder.welcome.record(Recorder.micros(connectStart, now))
        if let limit = welcome.limits["linesPerSecond"], plan.rate >= Double(limit) {
            recorder.error("rate \(plan.rate)/s is not under the hub's linesPerSecond \(limit)")
        }
        if welcome.resumableSessionId != nil { recorder.error("user still seated (resumableSessionId)") }
        phase = .lobby
        return next()
    }

    // MARK: Session flow

    /// Joiner: the host opened session `generation` with `code` (`force`: again, for a retry).
    mutating func offer(code: String, generation: Int, force: Bool) -> Action {
        guard generation > joinedGeneration || force else { return .none }
        pendingCode = code
        pendingGeneration = generation
        return tryJoin()
    }

    /// `joined` came at `now`: in session, and speaking (the host tells the slot first).
    mutating func joined(_ session: JoinedSession, now: UInt64) -> Action {
        recorder.join.record(Recorder.micros(requestSentAt, now))
        retries = 0
        phase = .inSession
        gotEnded = false
        sessionsJoined += 1
        ledger.joined(session)
        if stopping {
            // The run ended while this request was in flight: close the session again.
            return seat == 0 ? .send(.end) : .none
        }
        if seat == 0, let code = session.joinCode { slot.opened(code: code, generation: generation) }
        return .startSpeaking
    }

    /// Checks the session's next broadcast `seq` (``SeatLedger/track(_:into:)``); true when it is new.
    mutating func track(_ seq: Int) -> Bool {
        ledger.track(seq, into: recorder)
    }

    /// The session's `ended` came (the host tells the slot why).
    mutating func ended(cause: String) {
        gotEnded = true
        if seat == 0 { slot.ended(cause: cause) }
    }

    /// `left` came: back to the lobby, and host or join the next session.
    mutating func left(reason: String) -> Action {
        if reason != "ended" && reason != "left" { recorder.error("left: \(reason)") }
        if phase == .inSession && !gotEnded { unfinished += 1 }
        guard phase != .closed else { return .none }
        phase = .lobby
        return next()
    }

    /// The hub refused a request (`code`, the stable error code), or the call failed.
    mutating func refused(code: String, kind: Request.Kind) -> Action {
        if kind == .say, code == "session_ended" || code == "not_in_session" {
            recorder.lateRequests += 1  // a say that raced the end of its session
            return .none
        }
        if stopping, kind == .join || kind == .end {
            recorder.lateRequests += 1  // a join or end that raced the end of the run
            if phase == .requesting { phase = .lobby }
            return .none
        }
        recorder.error("\(code) (\(kind.rawValue))")
        guard phase == .requesting, kind == .host || kind == .join else { return .none }
        phase = .lobby
        // `left` came, yet the hub may not have released the seat: try again shortly (3 times).
        guard code == "already_in_session", retries < 3 else { return .none }
        retries += 1
        recorder.retries += 1
        if kind == .host { return .retryLater(.host, after: .milliseconds(200)) }
        guard let code = lastJoinCode else { return .none }
        return .retryLater(.join(code: code), after: .milliseconds(200))
    }

    /// A ``Action/retryLater(_:after:)`` is due.
    mutating func retry(_ retry: Retry) -> Action {
        switch retry {
        case .host:
            generation -= 1
            return hostNext()
        case .join(let code):
            guard pendingCode == nil else { return .none }
            return offer(code: code, generation: joinedGeneration, force: true)
        }
    }

    private mutating func next() -> Action {
        seat == 0 ? hostNext() : tryJoin()
    }

    /// Host: start the next session (until the plan's rehost cutoff).
    private mutating func hostNext() -> Action {
        guard phase == .lobby, !stopping, monotonicNanos() < plan.rehostCutoff else { return .none }
        generation += 1
        phase = .requesting
        requestSentAt = monotonicNanos()
        return .send(.host(generation: generation))
    }

    /// Joiner: join the pending session, if any.
    private mutating func tryJoin() -> Action {
        guard phase == .lobby, !stopping, let code = pendingCode else { return .none }
        pendingCode = nil
        joinedGeneration = pendingGeneration
        lastJoinCode = code
        phase = .requesting
        requestSentAt = monotonicNanos()
        return .send(.join(code: code, generation: joinedGeneration))
    }

    // MARK: Speaking

    /// The say timer's first delay (a random part of the interval, so that the seats do not
    /// speak in step) and its interval; nil when the plan has no rate.
    mutating func sayTimes() -> (first: TimeAmount, every: TimeAmount)? {
        guard plan.rate > 0 else { return nil }
        let interval = Double(1) / plan.rate
        let phaseOffset = Double(rng.next() % 1_000_000) / 1_000_000 * interval
        return (.nanoseconds(Int64(phaseOffset * 1e9)), .nanoseconds(Int64(interval * 1e9)))
    }

    /// The say timer ticked at `now`: the next line, while in a session that has not ended;
    /// past the plan's end of speaking, the timer stops.
    mutating func sayDue(now: UInt64) -> Action {
        if now >= plan.speakEnd { return .stopSpeaking }
        guard phase == .inSession, !gotEnded else { return .none }
        let line = ledger.nextLine(speaker: index)
        recorder.sentOne(now: now)
        return .send(.say(text: line.text, translation: line.translation, number: line.number))
    }

    // MARK: Ending

    /// The end of the run: no new request, no pending join; the host ends its session. (The
    /// player stops its say timer.)
    mutating func finish() -> Action {
        stopping = true
        pendingCode = nil
        return seat == 0 && phase == .inSession && !gotEnded ? .send(.end) : .none
    }

    /// The player closes the connection normally: a session still on is unfinished.
    mutating func closing() {
        closingByUs = true
        if phase == .inSession && !gotEnded {
            unfinished += 1
            gotEnded = true
        }
    }

    /// The connection closed (`code` nil: without a close frame); a close the player did not
    /// ask for is counted by code.
    mutating func closed(code: Int?, reason: String) -> Action {
        let wasInSession = phase == .inSession || phase == .requesting
        phase = .closed
        if !closingByUs {
            let text = code.map(String.init) ?? "1006"
            recorder.close(reason.isEmpty ? text : "\(text) \(reason.prefix(60))")
        }
        if wasInSession && !gotEnded { unfinished += 1 }
        return .stopSpeaking
    }
}
