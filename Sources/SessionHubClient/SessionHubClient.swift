import Foundation
import HubDomain
import HubProtocol
import NIOCore
import NIOPosix
import NIOSSL
import WebSocket
import WebSocketTransport

/// A player's connection to a SessionHub: typed requests as `async` calls, each matched to its
/// own answer, the session's broadcasts as an `AsyncSequence`, and a live ``SessionModel`` that
/// is always the `joined` snapshot with every later broadcast applied once, in order.
///
/// ```swift
/// let client = try SessionHubClient(url: "ws://127.0.0.1:8080/ws") { try await myBackend.hubToken() }
/// let welcome = try await client.connect()
/// let session = try await client.host(scenarioId: "ordering-coffee")
/// print("join code", session.joinCode ?? "-")
/// let line = try await client.say("Un café, por favor", translation: "A coffee, please")
/// for await message in client.events { … }    // participants, lines, recasts, stats, ended, …
/// ```
///
/// Requests get ids of their own (a random prefix per client and a counter), so an answer is
/// never taken for another's. A request whose answer is a broadcast (`say` → `line`, `recast`,
/// `acceptRecast`, `end` → `ended`) returns once this user's own copy of it arrived: the hub
/// journaled the change and sent it to everyone. Errors the hub answers with throw
/// ``SessionHubClientError/refused(code:message:retryAfter:)`` with the protocol's stable code.
///
/// The token goes on the upgrade request (`Authorization: Bearer`), never in the URL.
///
/// **Drops.** When the connection drops (or the hub restarts, hands the session to another
/// node, or the token expires), calls waiting for an answer throw
/// ``SessionHubClientError/connectionClosed(code:reason:)``, and the client comes back by itself
/// (``ReconnectPolicy``): a new connection with a fresh token, then `resume` with the newest
/// resume token and the model's `seq`, so the model continues with exactly the broadcasts it
/// missed. ``state`` is ``ConnectionState/reconnecting(attempt:)`` meanwhile.
public actor SessionHubClient {
    /// Returns a current token for the hub (called on every connect).
    public typealias TokenProvider = @Sendable () async throws -> String

    /// Every message from the hub after the client applied it to ``session``: broadcasts,
    /// replies, and unasked messages such as `left{reason:"ended"}`. One consumer.
    public nonisolated let events: AsyncStream<ServerMessage>
    /// Every change of ``state``. One consumer.
    public nonisolated let states: AsyncStream<ConnectionState>
    private let eventSink: AsyncStream<ServerMessage>.Continuation
    private let stateSink: AsyncStream<ConnectionState>.Continuation

    /// Where the connection stands.
    public private(set) var state: ConnectionState = .idle
    /// The session this client plays in, or played in last (``isInSession`` tells which).
    public private(set) var session: SessionModel?
    /// The client is in ``session`` (between `joined` or `resumed` and `left`).
    public private(set) var isInSession = false
    /// The hub's `welcome`, once connected.
    public private(set) var welcome: ServerMessage.Welcome?
    /// The token that resumes this client's seat (from the last `joined` or `resumed`).
    public private(set) var resumeToken: String?

    /// The URL the app gave (a cluster's front): every reconnect starts here.
    let homeURL: WebSocketURL
    /// Where the current connection goes (after a redirect: the owner node).
    private var url: WebSocketURL
    let tls: TLSConfiguration
    /// Offer permessage-deflate on every connection.
    let deflate: Bool
    let token: TokenProvider
    let requestTimeout: Duration
    private let reconnect: ReconnectPolicy?
    /// ``close()`` was called: no reconnecting.
    private var closing = false
    private var reconnecting: Task<Void, Never>?
    private let idPrefix: String
    private var nextId = 0
    private var connection: WebSocketClientConnection?
    private var reader: Task<Void, Never>?
    private var book = RequestBook<CheckedContinuation<ServerMessage, any Error>>()
    /// Waiters are nil for lines restored from the store (whoever said them is gone).
    private var outbox = LineOutbox<CheckedContinuation<DialogLine, any Error>?>()
    private let store: (any SessionHubClientStore)?
    /// The store's writes, one after the other.
    private var storeWrites: Task<Void, Never>?
    private var appliedSinceSave = 0
    private var lineNumber = 0
    /// The connection dropped while the client was in a session, and it is coming back to it.
    private var awaitingResume = false
    private var welcomeWaiter: CheckedContinuation<ServerMessage.Welcome, any Error>?
    /// A connection is being opened: its `welcome` (or its end) has not reached ``open()`` yet.
    private var opening = false
    /// What answered the opening connection before ``open()`` registered its waiter: Swift may
    /// run a continuation's closure as a later job of the actor (swiftlang/swift#85668).
    private var welcomeOutcome: Result<ServerMessage.Welcome, any Error>?
    /// The repository ``historyRepository()`` made, told about `historyUpdated`.
    private var history: RemoteHistoryRepository?

    /// The hub's account API (docs/API.md) with this client's host, TLS settings and tokens.
    public nonisolated let http: HubHTTPClient

    /// A client for the hub at `url` (`wss://host/ws`, or `ws://` on a trusted network).
    /// - Parameters:
    ///   - tls: for `wss://`: trust roots and verification (default: the system's roots, full
    ///     certificate and host-name checks).
    ///   - requestTimeout: how long a request may wait for its answer.
    ///   - reconnect: how to come back after a drop; nil: not at all.
    ///   - store: where to keep the seat between launches of the app (``SavedSeat``); with one,
    ///     ``connect()`` takes back a seat the app held when it was killed, and sends its unsent
    ///     lines.
    ///   - deflate: offer permessage-deflate (the hub's messages are JSON: usually a third of the
    ///     bytes on the air, for some CPU on both ends).
    ///   - token: called for a token on every connect.
    /// - Throws: ``SessionHubClientError/transport(_:)`` when `url` is not a WebSocket URL.
    public init(url: String, tls: TLSConfiguration = .makeClientConfiguration(), requestTimeout: Duration = .seconds(10),
                reconnect: ReconnectPolicy? = ReconnectPolicy(), store: (any SessionHubClientStore)? = nil,
                deflate: Bool = true, token: @escaping TokenProvider) throws(SessionHubClientError) {
        do {
            self.homeURL = try WebSocketURL(parsing: url)
        } catch {
            throw .transport("not a WebSocket URL: \(url) (\(error))")
        }
        self.url = homeURL
        self.tls = tls
        self.deflate = deflate
        self.token = token
        self.requestTimeout = requestTimeout
        self.reconnect = reconnect
        self.store = store
        self.idPrefix = String(UInt32.random(in: .min ... .max), radix: 36) + "-"
        self.http = try HubHTTPClient(url: homeURL, tls: tls, timeout: requestTimeout, token: token)
        (events, eventSink) = AsyncStream.makeStream(of: ServerMessage.self)
        (states, stateSink) = AsyncStream.makeStream(of: ConnectionState.self)
    }

    // MARK: Connection

    /// Opens the connection with a fresh token and waits for the hub's `welcome`; with a store,
    /// takes back a seat saved before the app was last stopped.
    @discardableResult
    public func connect() async throws -> ServerMessage.Welcome {
        guard connection == nil, reconnecting == nil, state != .connecting else {
            throw SessionHubClientError.wrongState("already connected or connecting")
        }
        closing = false
        move(to: .connecting)
        do {
            let welcome = try await open()
            if closing {
                abandonConnection(reason: "closed by the client")
                throw SessionHubClientError.connectionClosed(code: nil, reason: "closed by the client")
            }
            await takeBackSavedSeat(welcome)
            if connection != nil, reconnecting == nil { move(to: .connected(userId: welcome.userId)) }
            return welcome
        } catch {
            if case .connecting = state { move(to: .closed(code: nil, reason: "\(error)")) }
            throw error
        }
    }

    /// Closes the connection (1000) and stops coming back. The seat, if any, is held for the
    /// hub's grace window (and stays in the store, for the next launch).
    public func close() {
        closing = true
        reconnectRun += 1
        reconnecting?.cancel()
        reconnecting = nil
        if let connection {
            connection.close(code: .normalClosure, reason: "bye")
        } else if state != .idle {
            awaitingResume = false
            failLines(.connectionClosed(code: nil, reason: "closed by the client"))
            if state != .connecting { move(to: .closed(code: nil, reason: "closed by the client")) }
        }
    }

    /// Cuts the connection as a network loss would: the client reconnects and resumes per its
    /// ``ReconnectPolicy``, exactly as after a real drop — calls waiting for an answer throw
    /// ``SessionHubClientError/connectionClosed(code:reason:)``, ``state`` goes through
    /// ``ConnectionState/reconnecting(attempt:)``, lines said meanwhile are sent after the resume,
    /// and the model goes on with exactly the broadcasts it missed (`events` carries the `resumed`,
    /// then the replay). For an app's own tests of how it behaves when the network goes away.
    ///
    /// ```swift
    /// await client.dropConnection { try? await Task.sleep(for: .seconds(2)) }  // two seconds offline
    /// ```
    ///
    /// The hub sees the device go away (close 1001) and holds the seat for its grace window, as
    /// for a lost phone. Without a reconnect policy the client stays closed. Nothing happens when
    /// the client is not connected (or already coming back).
    /// - Parameter networkReturns: the outage: the client makes no reconnect attempt before it
    ///   returns (then waits the policy's backoff as usual). Nil: back per the policy at once.
    public func dropConnection(until networkReturns: (@Sendable () async -> Void)? = nil) {
        guard let connection, reconnecting == nil, !closing else { return }
        simulatedOutage = networkReturns
        droppingOnPurpose = true
        connection.close(code: .goingAway, reason: "connection dropped")
    }

    /// Set by ``dropConnection(until:)`` until its close arrives: that close is a drop, whatever
    /// its code.
    private var droppingOnPurpose = false
    /// The outage ``dropConnection(until:)`` asked for, waited for before the first reconnect attempt.
    private var simulatedOutage: (@Sendable () async -> Void)?

    /// A new connection with a fresh token, up to the hub's `welcome`.
    private func open() async throws -> ServerMessage.Welcome {
        let connection: WebSocketClientConnection
        do {
            let token = try await self.token()
            var configuration = WebSocketClientConfiguration(tls: tls)
            if !deflate { configuration.compression = PerMessageDeflateConfiguration(isEnabled: false) }
            configuration.headers = [(name: "Authorization", value: "Bearer \(token)")]
            connection = try await WebSocketClient.connect(to: url, configuration: configuration, group: MultiThreadedEventLoopGroup.singleton)
        } catch {
            throw SessionHubClientError.transport("cannot connect to \(url): \(error)")
        }
        // A connection opened meanwhile (it should not be) gives way to this one.
        if self.connection != nil { abandonConnection(reason: "replaced") }
        self.connection = connection
        let generation = nextGeneration()
        opening = true
        welcomeOutcome = nil
        reader = Task { [weak self] in
            for await event in connection.events {
                switch event {
                case .message(.text(let buffer)):
                    await self?.receive(Data(buffer.readableBytesView), generation: generation)
                case .message(.binary):
                    continue
                case .closed(let code, let reason):
                    await self?.closed(code: code.map { Int($0.rawValue) }, reason: reason, generation: generation)
                }
            }
        }
        let welcome = try await withCheckedThrowingContinuation { waiter in
            if let outcome = welcomeOutcome {
                welcomeOutcome = nil
                waiter.resume(with: outcome)
            } else {
                welcomeWaiter = waiter
            }
        }
        self.welcome = welcome
        return welcome
    }

    private var generation = 0

    /// Gives the opening connection's `welcome` (or its failure) to ``open()``, now or when it
    /// registers its waiter.
    private func answerWelcome(_ outcome: Result<ServerMessage.Welcome, any Error>) {
        if let waiter = welcomeWaiter {
            welcomeWaiter = nil
            opening = false
            waiter.resume(with: outcome)
        } else if opening {
            opening = false
            welcomeOutcome = outcome
        }
    }

    private func nextGeneration() -> Int {
        generation += 1
        return generation
    }

    /// Lets go of the current connection: its messages and its close are ignored from now on,
    /// and whatever waited on it fails.
    private func abandonConnection(reason: String) {
        let old = connection
        connection = nil
        reader = nil
        _ = nextGeneration()
        let failure = SessionHubClientError.connectionClosed(code: nil, reason: reason)
        answerWelcome(.failure(failure))
        for waiter in book.removeAll() { waiter.resume(throwing: failure) }
        old?.close(code: .goingAway, reason: reason)
    }

    /// Each reconnect loop's number; a loop whose number is no longer current (``close()``, or a
    /// newer loop) stops without touching the client's state.
    private var reconnectRun = 0

    /// Comes back after a drop: waits, reconnects, resumes the seat if there was one.
    private func comeBack(run: Int, resuming: Bool, policy: ReconnectPolicy) async {
        func current() -> Bool { run == reconnectRun && !closing && !Task.isCancelled }
        if let outage = simulatedOutage {
            simulatedOutage = nil
            move(to: .reconnecting(attempt: 1))
            await outage()
        }
        var attempt = 0
        while current() {
            attempt += 1
            if let most = policy.maxAttempts, attempt > most { break }
            move(to: .reconnecting(attempt: attempt))
            try? await Task.sleep(for: policy.delay(beforeAttempt: attempt, random: Double.random(in: 0..<1)))
            guard current() else { return }
            url = homeURL
            guard (try? await open()) != nil else {
                abandonConnection(reason: "reconnect failed")
                continue
            }
            guard current() else { return abandonConnection(reason: "closed by the client") }
            if resuming {
                let outcome = await resumeSeat()
                guard current() else { return abandonConnection(reason: "closed by the client") }
                if outcome == .retry {
                    abandonConnection(reason: "resume failed")
                    continue
                }
            }
            guard connection != nil, let welcome else { continue }  // dropped again meanwhile
            reconnecting = nil
            move(to: .connected(userId: welcome.userId))
            return
        }
        guard run == reconnectRun else { return }
        reconnecting = nil
        awaitingResume = false
        let reason = closing ? "closed by the client" : "gave up reconnecting"
        failLines(.connectionClosed(code: nil, reason: reason))
        if connection == nil { move(to: .closed(code: nil, reason: reason)) }
    }

    private enum ResumeOutcome {
        case resumed, seatGone, retry
    }

    /// Refusals of `resume` after which the seat is gone for good; any other is tried again.
    private static let finalResumeRefusals: Set<String> = [
        HubError.Code.invalidResumeToken.rawValue, HubError.Code.invalidLastSeq.rawValue,
        HubError.Code.sessionEnded.rawValue, HubError.Code.notInSession.rawValue,
    ]

    /// Sends `resume` with the newest token and the model's `seq` (following the seat to its
    /// node); the outbox goes out again once the replay is applied.
    private func resumeSeat() async -> ResumeOutcome {
        guard let token = resumeToken, let lastSeq = session?.seq else { return .seatGone }
        awaitingResume = true
        do {
            var answer: ServerMessage
            do {
                answer = try await request(.resume(resumeToken: token, lastSeq: lastSeq), answer: .resumed)
            } catch SessionHubClientError.elsewhere(_, let target?, _) {
                try await redirect(to: target)
                answer = try await request(.resume(resumeToken: token, lastSeq: lastSeq), answer: .resumed)
            }
            guard case .resumed(let resumed) = answer else { return .retry }
            // Lines the replay shows are taken out as it is applied; the rest go out after it.
            if resumed.mode == .replay, resumed.replayed > 0, (session?.seq ?? 0) < lastSeq + resumed.replayed {
                resendAfter = lastSeq + resumed.replayed
            } else {
                resendOutbox()
            }
            return .resumed
        } catch SessionHubClientError.refused(let code, let message, let retryAfter) where Self.finalResumeRefusals.contains(code) {
            if code == HubError.Code.invalidResumeToken.rawValue, resumeAnswerLost, staleTokenMayStillWork() {
                // The answer to an earlier resume, with the token that replaced ours, was lost
                // with its connection; the hub takes our token again once it notices that
                // connection is gone, so this refusal is tried again after the backoff.
                return .retry
            }
            // The seat is gone (grace window over, session ended, …): the client stays in the
            // lobby; the hub's `error` went out on `events` like every message.
            awaitingResume = false
            failLines(.refused(code: code, message: message, retryAfter: retryAfter))
            forget()
            return .seatGone
        } catch {
            switch error {
            case SessionHubClientError.connectionClosed, SessionHubClientError.timedOut: resumeAnswerLost = true
            default: break
            }
            return .retry
        }
    }

    /// Whether a `resume` went out and no answer came (its connection closed, or it timed out):
    /// the hub may have replaced the token we hold with one we never got.
    private var resumeAnswerLost = false
    /// Until when `invalid_resume_token` after such a lost answer is tried again.
    private var staleTokenDeadline: ContinuousClock.Instant?

    /// Whether the token we hold may still open the seat: the hub accepts it again once it
    /// notices that the connection the lost answer went to is gone, which for a connection that
    /// died silently takes up to its ping timeout. Tried for the hub's grace window (from
    /// `welcome.limits.graceSeconds`, ``HubConfiguration/defaultGraceSeconds`` if absent) plus a minute, from the first refusal.
    private func staleTokenMayStillWork() -> Bool {
        let now = ContinuousClock.now
        if staleTokenDeadline == nil {
            let grace = welcome?.limits["graceSeconds"] ?? HubConfiguration.defaultGraceSeconds
            staleTokenDeadline = now + .seconds(grace + 60)
        }
        return staleTokenDeadline.map { now < $0 } ?? false
    }

    /// After a replay reaches this `seq`, the outbox is sent again.
    private var resendAfter: Int?

    /// Sends every line of the outbox again, in the order said; new lines go out at once again.
    private func resendOutbox() {
        resendAfter = nil
        awaitingResume = false
        for line in outbox.lines { send(line: line.clientId, text: line.text, translation: line.translation) }
    }

    // MARK: Requests

    /// The user's history on this hub (one repository per client): the SDK's history
    /// repository contract over the account API. Its ``RemoteHistoryRepository/sessions`` follow
    /// the hub's `historyUpdated` pushes on this connection (a session of this user, played here
    /// or saved by another of their devices, entered their history: that session is fetched and
    /// put in its place) and are fetched again after a reconnect.
    public func historyRepository() -> RemoteHistoryRepository {
        if let history { return history }
        let made = RemoteHistoryRepository(http: http)
        history = made
        return made
    }

    /// The hub's scenarios, sorted by title.
    public func scenarios() async throws -> [Scenario] {
        guard case .scenarios(let list) = try await request(.scenarios, answer: .scenarios) else { throw unexpected("scenarios") }
        return list.scenarios
    }

    /// The hub's clock (epoch ms), measured by a round trip.
    public func ping() async throws -> Int64 {
        guard case .pong(let pong) = try await request(.ping, answer: .pong) else { throw unexpected("ping") }
        return pong.serverTime
    }

    /// Hosts a session of `scenarioId` (others join with its ``SessionModel/joinCode``).
    public func host(scenarioId: String, maxPlayers: Int? = nil) async throws -> SessionModel {
        try await enter(.host(scenarioId: scenarioId, maxPlayers: maxPlayers))
    }

    /// Plays `scenarioId` alone.
    public func startSolo(scenarioId: String) async throws -> SessionModel {
        try await enter(.startSolo(scenarioId: scenarioId))
    }

    /// Joins the session whose code is `code` (case and dashes do not matter).
    public func join(code: String) async throws -> SessionModel {
        try await enter(.join(code: code))
    }

    /// Says a line; returns it as the hub stored it, once everyone was sent it.
    ///
    /// The line survives drops: said while the client is reconnecting, it is sent once the seat
    /// is resumed; sent but not acknowledged when the connection dropped, it is sent again after
    /// the resume unless the replay shows it arrived. Its `clientId` makes sure the hub records it
    /// exactly once either way.
    /// - Parameter clientId: your own id for the line (unique among your lines of the session);
    ///   one is made up when nil.
    public func say(_ text: String, translation: String = "", clientId: String? = nil) async throws -> DialogLine {
        if !awaitingResume { try requireSession() }
        lineNumber += 1
        let clientId = clientId ?? idPrefix + "line-" + String(lineNumber)
        return try await withCheckedThrowingContinuation { waiter in
            // Checked again here: the connection may have closed before this closure runs.
            if !awaitingResume, connection == nil || !isInSession {
                waiter.resume(throwing: connection == nil ? SessionHubClientError.notConnected
                                                         : SessionHubClientError.wrongState("not in a session"))
                return
            }
            outbox.add(clientId: clientId, text: text, translation: translation, waiter: waiter)
            persist()
            if connection != nil, isInSession, !awaitingResume { send(line: clientId, text: text, translation: translation) }
        }
    }

    /// Sends the line `clientId` under a fresh request id; fails it with a timeout if it is still
    /// unanswered on a live connection after ``requestTimeout``.
    private func send(line clientId: String, text: String, translation: String) {
        guard let connection else { return }
        nextId += 1
        let id = idPrefix + String(nextId)
        outbox.sent(clientId, as: id)
        connection.send(text: ClientMessageEncoder.encode(.say(textNative: text, textTranslated: translation, clientId: clientId), id: id))
        let timeout = requestTimeout
        Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.expireLine(requestId: id)
        }
    }

    private func expireLine(requestId: String) {
        guard case .connected = state, let line = outbox.take(requestId: requestId) else { return }
        line.waiter?.resume(throwing: SessionHubClientError.timedOut(request: "say"))
        persist()
    }

    /// Settles the outbox with `message`: a line of this user's with a waiting `clientId` is
    /// acknowledged; an `error` answering a line's latest send refuses it (`duplicate_line`:
    /// it was recorded before, and the model has it).
    private func settleLines(with message: ServerMessage) {
        switch message {
        case .line(let m) where m.line.speakerId == welcome?.userId:
            if let clientId = m.line.clientId, let line = outbox.take(clientId: clientId) {
                line.waiter?.resume(returning: m.line)
                persist()
            }
        case .error(let m):
            guard let ref = m.ref, let line = outbox.take(requestId: ref) else { return }
            if m.code == HubError.Code.duplicateLine.rawValue,
               let stored = session?.lines.first(where: { $0.clientId == line.clientId && $0.speakerId == welcome?.userId }) {
                line.waiter?.resume(returning: stored)
            } else {
                line.waiter?.resume(throwing: SessionHubClientError(m))
            }
            persist()
        default:
            break
        }
    }

    /// Fails every line still waiting (the seat is gone, or the client stopped).
    private func failLines(_ failure: SessionHubClientError) {
        let lines = outbox.removeAll()
        for line in lines { line.waiter?.resume(throwing: failure) }
        if !lines.isEmpty { persist(force: true) }
    }

    /// Corrects someone else's line.
    public func recast(lineId: String, correctedText: String, explanation: String? = nil,
                       issueTypes: [RecastIssueType]) async throws -> Recast {
        try requireSession()
        let answer = try await request(.recast(lineId: lineId, correctedText: correctedText, explanation: explanation,
                                               issueTypes: issueTypes), answer: .recast)
        guard case .recast(let recast) = answer else { throw unexpected("recast") }
        return recast.recast
    }

    /// Accepts a correction of one of your lines.
    public func acceptRecast(_ recastId: String) async throws {
        try requireSession()
        _ = try await request(.acceptRecast(recastId: recastId), answer: .recastAccepted)
    }

    /// Leaves the session for good (no grace window).
    public func leave() async throws {
        try requireSession()
        _ = try await request(.leave, answer: .left)
        isInSession = false
    }

    /// Ends the session (host only); returns the `ended` broadcast with everyone's figures.
    public func end() async throws -> ServerMessage.EndedBroadcast {
        try requireSession()
        guard case .ended(let ended) = try await request(.end, answer: .ended) else { throw unexpected("end") }
        return ended
    }

    // MARK: Internals

    private func enter(_ request: ClientRequest) async throws -> SessionModel {
        if isInSession { throw SessionHubClientError.wrongState("already in a session; leave it first") }
        // A join of a session another node owns is sent there (a few hops at most; a session
        // between owners is asked again after the hub's retryAfter).
        for hop in 1... {
            do {
                _ = try await self.request(request, answer: .joined)
                break
            } catch SessionHubClientError.elsewhere(_, let target, let retryAfter) where hop < 6 {
                if let target {
                    try await redirect(to: target)
                } else {
                    try await Task.sleep(for: .seconds(max(1, retryAfter ?? 1)))
                }
            }
        }
        guard let session else { throw unexpected(request.type) }
        return session
    }

    /// Leaves the current connection for one to `target` (a redirect): the old one's close is
    /// not a drop.
    private func redirect(to target: String) async throws {
        do {
            url = try WebSocketURL(parsing: target)
        } catch {
            throw SessionHubClientError.transport("the hub sent to a URL that is not one: \(target)")
        }
        let old = connection
        connection = nil
        _ = nextGeneration()  // the old connection's close is ignored
        // An open() still waiting for the old connection's welcome fails now, not never.
        answerWelcome(.failure(SessionHubClientError.connectionClosed(code: nil, reason: "redirected")))
        old?.close(code: .goingAway, reason: "redirected")
        do {
            let welcome = try await open()
            if reconnecting == nil { move(to: .connected(userId: welcome.userId)) }
        } catch {
            abandonConnection(reason: "redirect failed")
            if reconnecting == nil { move(to: .closed(code: nil, reason: "redirect to \(target) failed: \(error)")) }
            throw error
        }
    }

    private func requireSession() throws {
        if connection == nil { throw SessionHubClientError.notConnected }
        if !isInSession { throw SessionHubClientError.wrongState("not in a session") }
    }

    private func unexpected(_ request: String) -> SessionHubClientError {
        .transport("unexpected answer to \(request)")
    }

    /// Sends `request` under a fresh id and waits for the message that answers it.
    private func request(_ request: ClientRequest, answer: RequestBook<CheckedContinuation<ServerMessage, any Error>>.Answer) async throws -> ServerMessage {
        guard let connection else { throw SessionHubClientError.notConnected }
        nextId += 1
        let id = idPrefix + String(nextId)
        let text = ClientMessageEncoder.encode(request, id: id)
        let timeout = requestTimeout
        let generation = self.generation
        return try await withCheckedThrowingContinuation { waiter in
            // Checked again here: the connection may have closed (and its waiters failed) before
            // this closure runs.
            guard self.connection != nil, self.generation == generation else {
                waiter.resume(throwing: SessionHubClientError.connectionClosed(code: nil, reason: "closed before the request was sent"))
                return
            }
            book.add(id: id, answer: answer, waiter: waiter)
            connection.send(text: text)
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                await self?.expire(id, request: request.type)
            }
        }
    }

    private func expire(_ id: String, request: String) {
        book.remove(id: id)?.resume(throwing: SessionHubClientError.timedOut(request: request))
    }

    private func receive(_ data: Data, generation: Int) {
        guard generation == self.generation else { return }  // a connection let go of
        let message: ServerMessage
        do {
            message = try ServerMessageDecoder().decode(data)
        } catch {
            return  // not a message of this protocol version: skipped
        }
        switch message {
        case .welcome(let welcome) where welcome.ref == nil:
            answerWelcome(.success(welcome))
        case .joined(let joined):
            session = SessionModel(joined.session)
            took(joined.resumeToken)
            persist()
        case .resumed(let resumed):
            if let snapshot = resumed.session { session = SessionModel(snapshot) }
            took(resumed.resumeToken)
            persist()
        case .left(let left) where left.reason == "moved" || left.reason == "handedOver":
            // The session lives on at another node: the close that follows is a drop to come
            // back from, seat and all.
            break
        case .left:
            isInSession = false
            forget()
        case .other(type: ServerMessageType.historyUpdated.rawValue):
            if let history {
                struct Push: Decodable {
                    struct Summary: Decodable { let sessionId: String }
                    let session: Summary?
                }
                let sessionId = (try? JSONDecoder().decode(Push.self, from: data))?.session?.sessionId
                Task { await history.sessionUpdated(sessionId) }
            }
        default:
            if session?.apply(message) == .applied {
                appliedSinceSave += 1
                // The saved model may lag behind: a resume from an older seq replays more.
                if appliedSinceSave >= 16 { persist() }
                if let target = resendAfter, let seq = session?.seq, seq >= target { resendOutbox() }
            }
        }
        if let (waiter, outcome) = book.answer(message, userId: welcome?.userId) {
            waiter.resume(with: outcome.mapError { $0 as any Error })
        }
        settleLines(with: message)
        eventSink.yield(message)
    }

    // MARK: The saved seat

    /// Saves the seat (token, model, unsent lines) when the client holds one.
    /// `force`: also when the client holds no seat now (lines failed after a close: the saved
    /// seat must not keep them).
    private func persist(force: Bool = false) {
        guard let store, let resumeToken, let session, force || isInSession || awaitingResume || !outbox.isEmpty else { return }
        appliedSinceSave = 0
        let seat = SavedSeat(resumeToken: resumeToken, session: session,
                             unsentLines: outbox.lines.map { SavedSeat.Line(clientId: $0.clientId, text: $0.text, translation: $0.translation) })
        write { try await store.save(seat) }
    }

    /// Forgets the saved seat.
    /// A seat taken or taken back with `token`: any earlier lost answer no longer matters.
    private func took(_ token: String) {
        resumeToken = token
        isInSession = true
        resumeAnswerLost = false
        staleTokenDeadline = nil
    }

    private func forget() {
        guard let store else { return }
        write { try await store.clear() }
    }

    private func write(_ operation: @escaping @Sendable () async throws -> Void) {
        let previous = storeWrites
        storeWrites = Task {
            await previous?.value
            try? await operation()
        }
    }

    /// After a fresh start of the app: takes back the seat saved before it was killed, if the hub
    /// still holds it (`welcome.resumableSessionId`), and sends the lines it had not acknowledged.
    private func takeBackSavedSeat(_ welcome: ServerMessage.Welcome) async {
        guard let store, !isInSession else { return }
        await storeWrites?.value
        guard let seat = try? await store.load() else { return }
        guard welcome.resumableSessionId == seat.session.sessionId else { return forget() }
        session = seat.session
        resumeToken = seat.resumeToken
        for line in seat.unsentLines where !outbox.lines.contains(where: { $0.clientId == line.clientId }) {
            outbox.add(clientId: line.clientId, text: line.text, translation: line.translation, waiter: nil)
        }
        if await resumeSeat() == .retry, connection != nil {
            // Refused for now (not for good): the seat stays saved; the next connect tries again.
            awaitingResume = false
        }
    }

    private func closed(code: Int?, reason: String, generation: Int) {
        guard generation == self.generation else { return }  // an older connection's last word
        connection = nil
        reader = nil
        let wasInSession = isInSession || awaitingResume
        isInSession = false
        resendAfter = nil
        let failure = SessionHubClientError.connectionClosed(code: code, reason: reason)
        let wasWelcomed = welcomeWaiter == nil && !opening
        answerWelcome(.failure(failure))
        for waiter in book.removeAll() { waiter.resume(throwing: failure) }
        let dropped = droppingOnPurpose
        droppingOnPurpose = false
        if reconnecting != nil { return }  // the reconnect loop goes on
        if !closing, wasWelcomed, let policy = reconnect, dropped || ReconnectPolicy.reconnects(afterClose: code, reason: reason) {
            awaitingResume = wasInSession
            if !wasInSession { failLines(failure) }
            reconnectRun += 1
            let run = reconnectRun
            reconnecting = Task { await self.comeBack(run: run, resuming: wasInSession, policy: policy) }
            return
        }
        awaitingResume = false
        failLines(failure)
        move(to: .closed(code: code, reason: reason))
    }

    private func move(to state: ConnectionState) {
        // Pushes sent while the connection was down are lost: a watched history is fetched again.
        if case .connected = state, case .reconnecting = self.state, let history {
            Task { await history.refreshIfObserved() }
        }
        self.state = state
        stateSink.yield(state)
    }
}
