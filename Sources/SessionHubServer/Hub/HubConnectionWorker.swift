import HubDomain
import HubProtocol
import Logging
import NIOCore
import Synchronization
import WebSocket
import WebSocketTransport

/// Processes one connection's messages strictly in order: authentication first, then lobby
/// requests (scenarios, start, host, join, resume) and in-session requests, each checked
/// against the connection's rate limits.
///
/// Inputs go into a small queue (``yield(_:)``); a task runs only while some are pending and
/// ends when the queue is empty, so an idle connection holds no task. The task runs on the
/// connection's event loop (``EventLoopTaskExecutor``), which is its session's loop once it is in
/// one (the connection moves there, ``EventLoopSessionExecutors``): a request reaches its session
/// without a thread switch. At most one such task
/// runs at a time, and it takes the inputs in arrival order; the connection's state moves into
/// that task while it runs and back into the queue when it ends, so nothing else touches it.
///
/// The connection lives as long as its token: the runtime's ``TokenExpiryWheel`` tells it
/// within a second after the token's `exp`, and it closes (1008 `token_expired`) unless an
/// `auth` with a fresh token of the same user renewed it in between.
final class HubConnectionWorker: Sendable {
    private let socket: WebSocketSocket
    private let runtime: HubRuntime
    /// The client's address as an opaque key (failed joins are counted per address), or nil.
    private let clientAddress: String?
    private let mailbox: Mutex<Mailbox>

    init(socket: WebSocketSocket, runtime: HubRuntime, clientAddress: String? = nil) {
        self.socket = socket
        self.runtime = runtime
        self.clientAddress = clientAddress
        let rates = runtime.rates
        mailbox = Mutex(Mailbox(state: State(
            requests: TokenBucket(full: rates.requests), lines: TokenBucket(full: rates.lines),
            joins: TokenBucket(full: rates.joins), errors: TokenBucket(full: rates.errors))))
    }

    /// The worker's mutable state: in the mailbox while no task runs, in the running task's
    /// hands while one does.
    ///
    /// (Its fields and the mailbox's are in an order that leaves little padding: every idle
    /// connection holds one.)
    private struct State: Sendable {
        var user: HubUser?
        var closed = false
        /// The `exp` of the token the connection is authenticated with (epoch seconds).
        var expiresAt = 0
        /// The session this connection plays in; its id goes on every log line of the connection.
        var session: LiveSession?
        var generation = 0
        var requests: TokenBucket
        var lines: TokenBucket
        var joins: TokenBucket
        var errors: TokenBucket
        /// The bucket of ``HubRuntime/expiries`` this connection waits in for `expiresAt`, once armed.
        var expiryBucket: Int64?
    }

    /// The inputs not yet processed, and whether a task is processing them.
    private struct Mailbox: Sendable {
        /// Pending inputs from `head` on (the ones before are taken); emptied when all are.
        var pending: [ConnectionInput] = []
        var head = 0
        var state: State
        /// A task is processing the inputs (and holds `state`).
        var draining = false
        /// ``ConnectionInput/closed`` was queued: later inputs are dropped.
        var finished = false

        /// The next pending input, if any.
        mutating func take() -> ConnectionInput? {
            guard head < pending.count else {
                // Give the buffer back: an idle connection keeps no array.
                if !pending.isEmpty || pending.capacity > 0 { pending = [] }
                head = 0
                return nil
            }
            let input = pending[head]
            head += 1
            if head == pending.count {
                pending = []
                head = 0
            } else if head >= 16, head * 2 >= pending.count {
                pending.removeFirst(head)
                head = 0
            }
            return input
        }
    }

    /// Gives a connection that opened without a token ``HubConnectionLimits/authTimeoutSeconds``
    /// to send `auth` (``ConnectionInput/authTimeout`` closes it unless it did). The timer is not
    /// cancelled: an authenticated or closed connection ignores it, and keeping no handle keeps
    /// every connection smaller; it holds the worker at most that long after a close.
    func awaitAuthentication() {
        socket.eventLoop.scheduleTask(in: .seconds(runtime.limits.authTimeoutSeconds)) { self.yield(.authTimeout) }
    }

    /// Queues `input` behind the ones not yet processed, and starts a task to process them when
    /// none runs. Inputs after ``ConnectionInput/closed`` are dropped. Callable from any thread.
    func yield(_ input: ConnectionInput) {
        let start = mailbox.withLock { box -> Bool in
            if box.finished { return false }
            if case .closed = input { box.finished = true }
            box.pending.append(input)
            if box.draining { return false }
            box.draining = true
            return true
        }
        if start {
            // On the connection's loop: a session there is reached without a thread switch.
            Task(executorPreference: EventLoopTaskExecutor.on(socket.eventLoop)) { await self.drain() }
        }
    }

    /// Processes the pending inputs in order until none is left, then hands the state back.
    private func drain() async {
        var state = mailbox.withLock { $0.state }
        while true {
            let next = mailbox.withLock { box -> ConnectionInput? in
                if let input = box.take() { return input }
                box.state = state
                box.draining = false
                return nil
            }
            guard let input = next else { return }
            await process(input, &state)
        }
    }

    private func process(_ input: ConnectionInput, _ state: inout State) async {
        if case .closed = input { return await release(&state) }
        if state.closed { return }
        switch input {
        case .upgradeAuthenticated(let claims):
            await authenticate(claims, &state)
        case .text(let text):
            await handle(text, &state)
        case .detached(let generation, let reason):
            guard generation == state.generation else { break }
            state.session = nil
            if let (code, reason) = SocketParticipantLink.closing(for: reason) {
                // The link already closed the socket (SocketParticipantLink.detach).
                log(.info, "closing connection", ["code": "\(code.rawValue)", "reason": "\(reason)"], state)
                state.closed = true
            }
        case .authTimeout:
            if state.user == nil {
                close(.policyViolation, "auth_timeout: no token within \(runtime.limits.authTimeoutSeconds) s", &state)
            }
        case .tokenExpired:
            // A renewal may have moved the expiry after this timer was armed: then re-arm.
            if state.user != nil, isUnexpired(&state) { scheduleExpiry(at: state.expiresAt, &state) }
        case .closed:
            break
        }
    }

    /// The connection closed: releases the seat into its grace window.
    private func release(_ state: inout State) async {
        if let bucket = state.expiryBucket { runtime.expiries.disarm(self, at: bucket) }
        state.expiryBucket = nil
        if let user = state.user { runtime.channels.remove(socket, of: user.id) }
        if let session = state.session, let user = state.user {
            await session.disconnected(userId: user.id, linkId: socket.id)
        }
        state.session = nil
    }

// MARK: Requests

    private func handle(_ text: ByteBuffer, _ state: inout State) async {
        // Size: refused by the transport from the frame header (close 1009, HubWebSocketRouter).
        let now = runtime.clock.now()
        if state.user != nil, !isUnexpired(&state) { return }
        let message: ClientMessage
        switch text.withUnsafeReadableBytes({ runtime.decoder.decode(bytes: $0) }) {
        case .failure(let error):
            runtime.metrics.received(nil)
            if state.user == nil { return close(.policyViolation, "auth_required: send auth first", &state) }
            return fail(error.code.rawValue, error.message, ref: error.ref, &state)
        case .success(let decoded):
            message = decoded
            runtime.metrics.received(decoded.request.kind)
        }
        guard let user = state.user else {
            guard case .auth(let token) = message.request else {
                return close(.policyViolation, "auth_required: the first message must be auth", &state)
            }
            do {
                let claims = try runtime.tokens.verify(token, now: Int(now / 1000))
                await authenticate(claims, ref: message.id, &state)
            } catch {
                close(.policyViolation, "\(error.code): \(error)", &state)
            }
            return
        }
        guard state.requests.take(now: now, rate: runtime.rates.requests) else {
            return fail(HubError.Code.rateLimited.rawValue, "too many requests; slow down", ref: message.id, &state)
        }
        switch await runtime.account.answer(message.request, user: user, ref: message.id) {
        case .success(let text): return send(text)
        case .failure(let error): return fail(error.code, error.message, ref: message.id, &state)
        case nil: break
        }
        do throws(HubError) {
            try await dispatch(message, user: user, now: now, &state)
        } catch {
            fail(error.code.rawValue, error.message, ref: message.id, retryAfter: error.retryAfterSeconds,
                 location: error.location, &state)
        }
    }

    private func dispatch(_ message: ClientMessage, user: HubUser, now: Int64, _ state: inout State) async throws(HubError) {
        let ref = message.id
        let hub = runtime.hub
        switch message.request {
        case .hello(let version):
            if let version, version != ProtocolVersion.current {
                throw HubError(.unsupportedVersion, "unsupported protocolVersion \(version); this hub speaks \(ProtocolVersion.current)")
            }
            await sendWelcome(user, ref: ref)
        case .auth(let token):
            try await renew(token, user: user, ref: ref, &state)
        case .scenarios:
            send(ServerMessageEncoder.scenarios(hub.catalog.all, ref: ref))
        case .ping:
            send(ServerMessageEncoder.pong(ref: ref, serverTime: now))
        case .startSolo(let scenarioId):
            try requireLobby(state)
            let link = nextLink(&state)
            state.session = try await hub.startSolo(user: user, scenarioId: scenarioId, link: link, ref: ref)
        case .host(let scenarioId, let maxPlayers):
            try requireLobby(state)
            let link = nextLink(&state)
            state.session = try await hub.host(user: user, scenarioId: scenarioId, maxPlayers: maxPlayers, link: link, ref: ref)
        case .join(let code):
            try requireLobby(state)
            guard state.joins.take(now: now, rate: runtime.rates.joins) else { throw HubError(.rateLimited, "too many join attempts; wait a minute") }
            let link = nextLink(&state)
            state.session = try await hub.join(user: user, code: code, address: clientAddress, link: link, ref: ref)
        case .resume(let token, let lastSeq):
            try requireLobby(state)
            guard state.joins.take(now: now, rate: runtime.rates.joins) else { throw HubError(.rateLimited, "too many resume attempts; wait a minute") }
            let link = nextLink(&state)
            state.session = try await hub.resume(user: user, resumeToken: token, lastSeq: lastSeq, link: link, ref: ref)
        case .say(let native, let translated, let clientId):
            let session = try requireSession(state)
            try takeLine(now, &state)
            try await session.say(userId: user.id, textNative: native, textTranslated: translated, clientId: clientId, ref: ref)
        case .recast(let lineId, let corrected, let explanation, let types):
            let session = try requireSession(state)
            try takeLine(now, &state)
            try await session.recast(userId: user.id, lineId: lineId, correctedText: corrected,
                                     explanation: explanation, issueTypes: types, ref: ref)
        case .acceptRecast(let recastId):
            let session = try requireSession(state)
            try takeLine(now, &state)
            try await session.acceptRecast(userId: user.id, recastId: recastId, ref: ref)
        case .leave:
            let session = try requireSession(state)
            try await session.leave(userId: user.id)
            state.session = nil
            send(ServerMessageEncoder.left(ref: ref, reason: "left"))
        case .end:
            let session = try requireSession(state)
            try await session.end(by: user.id, ref: ref)
        case .profile, .updateProfile, .history, .historySession:
            break  // answered by runtime.account before dispatch
        }
    }

    // MARK: Helpers

    private func authenticate(_ claims: TokenClaims, ref: String? = nil, _ state: inout State) async {
        let user = HubUser(id: claims.sub, displayName: claims.name)
        let most = runtime.limits.maxConnectionsPerUser
        guard socket.authenticate(as: user.id, limit: most) else {
            fail(HubError.Code.tooManyConnections.rawValue, "this user already has \(most) connections open; close one first", ref: ref, &state)
            return close(.policyViolation, "too_many_connections: at most \(most) per user", &state)
        }
        state.user = user
        runtime.channels.add(socket, of: user.id)
        log(.debug, "authenticated", nil, state)
        scheduleExpiry(at: claims.exp, &state)
        await sendWelcome(user, ref: ref)
    }

    /// `auth` on an authenticated connection: a valid token of the same user moves the
    /// connection's expiry to its `exp` and is answered with `welcome`; any other is refused
    /// (`not_allowed`) and the connection keeps its current token.
    private func renew(_ token: String, user: HubUser, ref: String?, _ state: inout State) async throws(HubError) {
        let claims: TokenClaims
        do {
            claims = try runtime.tokens.verify(token, now: Int(runtime.clock.now() / 1000))
        } catch {
            throw HubError(.notAllowed, "this connection is authenticated; a renewing auth needs a valid token "
                           + "(\(error.code): \(error))")
        }
        guard claims.sub == user.id else {
            throw HubError(.notAllowed, "this connection is authenticated as another user; a renewing auth must name the same sub")
        }
        scheduleExpiry(at: claims.exp, &state)
        log(.debug, "authentication renewed", nil, state)
        await sendWelcome(user, ref: ref)
    }

    /// Makes the connection wait for `exp` (epoch seconds) in the shared expiry wheel, instead
    /// of the last expiry it waited for.
    private func scheduleExpiry(at exp: Int, _ state: inout State) {
        state.expiresAt = exp
        state.expiryBucket = runtime.expiries.arm(self, at: exp, previous: state.expiryBucket)
    }

    /// Whether the connection's token is still valid; when not, closes the connection with
    /// 1008 `token_expired`.
    private func isUnexpired(_ state: inout State) -> Bool {
        if Self.millis(state.expiresAt) > runtime.clock.now() { return true }
        close(.policyViolation, "token_expired: token expired", &state)
        return false
    }

    /// Epoch seconds as epoch milliseconds, saturating.
    private static func millis(_ seconds: Int) -> Int64 {
        let (value, overflow) = Int64(clamping: seconds).multipliedReportingOverflow(by: 1000)
        return overflow ? (seconds < 0 ? .min : .max) : value
    }

    private func sendWelcome(_ user: HubUser, ref: String? = nil) async {
        let hub = runtime.hub
        let resumable = await hub.seatPlacement(of: user.id)
        send(ServerMessageEncoder.welcome(userId: user.id, displayName: user.displayName,
                                          serverTime: runtime.clock.now(), limits: runtime.advertisedLimits,
                                          resumable: resumable, localNode: hub.localNode.nodeId, ref: ref))
    }

    private func nextLink(_ state: inout State) -> SocketParticipantLink {
        state.generation += 1
        return SocketParticipantLink(socket: socket, worker: self, generation: state.generation, metrics: runtime.metrics)
    }

    private func requireLobby(_ state: State) throws(HubError) {
        if state.session != nil {
            throw HubError(.alreadyInSession, "this connection is in a session; leave it first")
        }
    }

    private func requireSession(_ state: State) throws(HubError) -> LiveSession {
        guard let session = state.session else {
            throw HubError(.notInSession, "join or start a session first")
        }
        return session
    }

    private func takeLine(_ now: Int64, _ state: inout State) throws(HubError) {
        guard state.lines.take(now: now, rate: runtime.rates.lines) else {
            throw HubError(.rateLimited, "at most \(Int(runtime.limits.linesPerSecond)) lines per second")
        }
    }

    private func send(_ text: String) {
        socket.send(text: text)
        runtime.metrics.replied()
    }

    /// Replies `error`; a connection that keeps erring is closed with 1008.
    private func fail(_ code: String, _ message: String, ref: String?, retryAfter: Int? = nil,
                      location: NodeLocation? = nil, _ state: inout State) {
        send(ServerMessageEncoder.error(code: code, message: message, ref: ref, retryAfter: retryAfter, location: location))
        runtime.metrics.failed(code)
        if !state.errors.take(now: runtime.clock.now(), rate: runtime.rates.errors) {
            close(.policyViolation, "too many invalid requests", &state)
        }
    }

    private func close(_ code: WebSocketCloseCode, _ reason: String, _ state: inout State) {
        log(.info, "closing connection", ["code": "\(code.rawValue)", "reason": "\(reason)"], state)
        state.closed = true
        socket.close(code: code, reason: String(reason.utf8.prefix(123)) ?? "")
    }

    /// Logs with the connection's metadata (its id, its user once authenticated, its session
    /// while in one), built only when `level` is logged: an idle connection keeps no logger.
    private func log(_ level: Logger.Level, _ message: @autoclosure () -> Logger.Message,
                     _ metadata: @autoclosure () -> Logger.Metadata?, _ state: State) {
        guard runtime.logger.logLevel <= level else { return }
        var logger = runtime.logger
        logger[metadataKey: "conn"] = "\(socket.id)"
        if let user = state.user { logger[metadataKey: "user"] = "\(user.id)" }
        if let session = state.session { logger[metadataKey: "session"] = .string(session.id) }
        logger.log(level: level, message(), metadata: metadata())
    }
}
