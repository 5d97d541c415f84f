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
    private let homeURL: WebSocketURL
    /// Where the current connection goes (after a redirect: the owner node).
    private var url: WebSocketURL
    private let tls: TLSConfiguration
    private let token: TokenProvider
    private let requestTimeout: Duration
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

    /// A client for the hub at `url` (`wss://host/ws`, or `ws://` on a trusted network).
    /// - Parameters:
    ///   - tls: for `wss://`: trust roots and verification (default: the system's roots, full
    ///     certificate and host-name checks).
    ///   - requestTimeout: how long a request may wait for its answer.
    ///   - reconnect: how to come back after a drop; nil: not at all.
    ///   - store: where to keep the seat between launches of the app (``SavedSeat``); with one,
    ///     ``connect()`` takes back a seat the app held when it was killed, and sends its unsent
    ///     lines.
    ///   - token: called for a token on every connect.
    /// - Throws: ``SessionHubClientError/transport(_:)`` when `url` is not a WebSocket URL.
    public init(url: String, tls: TLSConfiguration = .makeClientConfiguration(), requestTimeout: Duration = .seconds(10),
                reconnect: ReconnectPolicy? = ReconnectPolicy(), store: (any SessionHubClientStore)? = nil,
                token: @escaping TokenProvider) throws(SessionHubClientError) {
        do {
            self.homeURL = try WebSocketURL(parsing: url)
        } catch {
            throw .transport("not a WebSocket URL: \(url) (\(error))")
        }
        self.url = homeURL
        self.tls = tls
        self.token = token
        self.requestTimeout = requestTimeout
        self.reconnect = reconnect
        self.store = store
        self.idPrefix = String(UInt32.random(in: .min ... .max), radix: 36) + "-"
        (events, eventSink) = AsyncStream.makeStream(of: ServerMessage.self)
        (states, stateSink) = AsyncStream.makeStream(of: ConnectionState.self)
    }

    // MARK: Connection

    /// Opens the connection with a fresh token and waits for the hub's `welcome`.
    @discardableResult
    public func connect() async throws -> ServerMessage.Welcome {
        guard connection == nil, reconnecting == nil else { throw SessionHubClientError.wrongState("already connected") }
        closing = false
        move(to: .connecting)
        do {
            let welcome = try await open()
            await takeBackSavedSeat(welcome)
            move(to: .connected(userId: welcome.userId))
            return welcome
        } catch {
            if case .connecting = state { move(to: .closed(code: nil, reason: "\(error)")) }
            throw error
        }
    }

    /// Closes the connection (1000) and stops coming back. The seat, if any, is held for the
    /// hub's grace window.
    public func close() {
        closing = true
        reconnecting?.cancel()
        reconnecting = nil
        if let connection {
            connection.close(code: .normalClosure, reason: "bye")
        } else if case .reconnecting = state {
            move(to: .closed(code: nil, reason: "closed by the client"))
        }
    }

    /// A new connection with a fresh token, up to the hub's `welcome`.
    private func open() async throws -> ServerMessage.Welcome {
        let connection: WebSocketClientConnection
        do {
            let token = try await self.token()
            var configuration = WebSocketClientConfiguration(tls: tls)
            configuration.headers = [(name: "Authorization", value: "Bearer \(token)")]
            connection = try await WebSocketClient.connect(to: url, configuration: configuration, group: MultiThreadedEventLoopGroup.singleton)
        } catch {
            throw SessionHubClientError.transport("cannot connect to \(url): \(error)")
        }
        self.connection = connection
        let generation = nextGeneration()
        reader = Task { [weak self] in
            for await event in connection.events {
                switch event {
                case .message(.text(let buffer)):
                    await self?.receive(Data(buffer.readableBytesView))
                case .message(.binary):
                    continue
                case .closed(let code, let reason):
                    await self?.closed(code: code.map { Int($0.rawValue) }, reason: reason, generation: generation)
                }
            }
        }
        let welcome = try await withCheckedThrowingContinuation { welcomeWaiter = $0 }
        self.welcome = welcome
        return welcome
    }

    private var generation = 0

    private func nextGeneration() -> Int {
        generation += 1
        return generation
    }

    /// Comes back after a drop: waits, reconnects, resumes the seat if there was one.
    private func comeBack(resuming: Bool, policy: ReconnectPolicy) async {
        var attempt = 0
        while !closing, !Task.isCancelled {
            attempt += 1
            if let most = policy.maxAttempts, attempt > most { break }
            move(to: .reconnecting(attempt: attempt))
            try? await Task.sleep(for: policy.delay(beforeAttempt: attempt, random: Double.random(in: 0..<1)))
            if closing || Task.isCancelled { break }
            url = homeURL
            guard var welcome = try? await open() else {
                connection?.close(code: .goingAway, reason: "reconnect failed")
                connection = nil
                continue
            }
            if resuming, let token = resumeToken, let lastSeq = session?.seq {
                do {
                    do {
                        _ = try await request(.resume(resumeToken: token, lastSeq: lastSeq), answer: .resumed)
                    } catch SessionHubClientError.elsewhere(_, let target?, _) {
                        // The seat is on another node: resume there.
                        try await redirect(to: target)
                        welcome = self.welcome ?? welcome
                        _ = try await request(.resume(resumeToken: token, lastSeq: lastSeq), answer: .resumed)
                    }
                    // Lines the replay did not show are sent again; a repeat is refused, not recorded.
                    for line in outbox.lines { send(line: line.clientId, text: line.text, translation: line.translation) }
                } catch let refusal as SessionHubClientError {
                    guard case .refused = refusal else { continue }  // dropped again: next attempt
                    // The seat is gone (grace window over, session ended, …): the client stays in
                    // the lobby; the hub's `error` went out on `events` like every message.
                    failLines(refusal)
                    forget()
                } catch {
                    continue
                }
            }
            awaitingResume = false
            reconnecting = nil
            move(to: .connected(userId: welcome.userId))
            return
        }
        reconnecting = nil
        awaitingResume = false
        failLines(.connectionClosed(code: nil, reason: closing ? "closed by the client" : "gave up reconnecting"))
        if connection == nil { move(to: .closed(code: nil, reason: closing ? "closed by the client" : "gave up reconnecting")) }
    }

    // MARK: Requests

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
            outbox.add(clientId: clientId, text: text, translation: translation, waiter: waiter)
            persist()
            if connection != nil, isInSession { send(line: clientId, text: text, translation: translation) }
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
        if !lines.isEmpty { persist() }
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
        old?.close(code: .goingAway, reason: "redirected")
        let welcome = try await open()
        move(to: .connected(userId: welcome.userId))
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
        return try await withCheckedThrowingContinuation { waiter in
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

    private func receive(_ data: Data) {
        let message: ServerMessage
        do {
            message = try ServerMessageDecoder().decode(data)
        } catch {
            return  // not a message of this protocol version: skipped
        }
        switch message {
        case .welcome(let welcome) where welcome.ref == nil:
            welcomeWaiter?.resume(returning: welcome)
            welcomeWaiter = nil
        case .joined(let joined):
            session = SessionModel(joined.session)
            resumeToken = joined.resumeToken
            isInSession = true
            persist()
        case .resumed(let resumed):
            if let snapshot = resumed.session { session = SessionModel(snapshot) }
            resumeToken = resumed.resumeToken
            isInSession = true
            persist()
        case .left:
            isInSession = false
            forget()
        default:
            if session?.apply(message) == .applied {
                appliedSinceSave += 1
                // The saved model may lag behind: a resume from an older seq replays more.
                if appliedSinceSave >= 16 { persist() }
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
    private func persist() {
        guard let store, let resumeToken, let session, isInSession || awaitingResume || !outbox.isEmpty else { return }
        appliedSinceSave = 0
        let seat = SavedSeat(resumeToken: resumeToken, session: session,
                             unsentLines: outbox.lines.map { SavedSeat.Line(clientId: $0.clientId, text: $0.text, translation: $0.translation) })
        write { try await store.save(seat) }
    }

    /// Forgets the saved seat.
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
        guard let store, !isInSession, session == nil else { return }
        await storeWrites?.value
        guard let seat = try? await store.load() else { return }
        guard welcome.resumableSessionId == seat.session.sessionId else { return forget() }
        session = seat.session
        resumeToken = seat.resumeToken
        for line in seat.unsentLines { outbox.add(clientId: line.clientId, text: line.text, translation: line.translation, waiter: nil) }
        do {
            _ = try await request(.resume(resumeToken: seat.resumeToken, lastSeq: seat.session.seq), answer: .resumed)
            for line in outbox.lines { send(line: line.clientId, text: line.text, translation: line.translation) }
        } catch {
            failLines(error as? SessionHubClientError ?? .transport("\(error)"))
            if case SessionHubClientError.refused = error { forget() }
        }
    }

    private func closed(code: Int?, reason: String, generation: Int) {
        guard generation == self.generation else { return }  // an older connection's last word
        connection = nil
        reader = nil
        let wasInSession = isInSession
        isInSession = false
        let failure = SessionHubClientError.connectionClosed(code: code, reason: reason)
        let wasWelcomed = welcomeWaiter == nil
        welcomeWaiter?.resume(throwing: failure)
        welcomeWaiter = nil
        for waiter in book.removeAll() { waiter.resume(throwing: failure) }
        if reconnecting != nil { return }  // the reconnect loop goes on
        if !closing, wasWelcomed, let policy = reconnect, ReconnectPolicy.reconnects(afterClose: code, reason: reason) {
            awaitingResume = wasInSession
            if !wasInSession { failLines(failure) }
            reconnecting = Task { await self.comeBack(resuming: wasInSession, policy: policy) }
            return
        }
        failLines(failure)
        move(to: .closed(code: code, reason: reason))
    }

    private func move(to state: ConnectionState) {
        self.state = state
        stateSink.yield(state)
    }
}
