import HubDomain
import HubProtocol
import Logging
import WebSocket
import WebSocketTransport

/// Processes one connection's messages strictly in order: authentication first, then lobby
/// requests (scenarios, start, host, join, resume) and in-session requests, each checked
/// against the connection's rate limits. Lives in one task; nothing else touches its state.
final class HubConnectionWorker: Sendable {
    private let socket: WebSocketSocket
    private let runtime: HubRuntime
    private let inputs: AsyncStream<ConnectionInput>.Continuation

    init(socket: WebSocketSocket, runtime: HubRuntime, inputs: AsyncStream<ConnectionInput>.Continuation) {
        self.socket = socket
        self.runtime = runtime
        self.inputs = inputs
    }

    /// The worker's mutable state, owned by ``run(_:authenticatedAs:)``'s task.
    private struct State {
        var user: HubUser?
        /// The session this connection plays in; its id goes on every log line of the connection.
        var session: LiveSession? {
            didSet { logger[metadataKey: "session"] = session.map { .string($0.id) } }
        }
        var generation = 0
        var requests: TokenBucket
        var lines: TokenBucket
        var joins: TokenBucket
        var errors: TokenBucket
        var closed = false
        var logger: Logger
    }

    /// Runs until the connection closes; then releases the seat into its grace window.
    func run(_ stream: AsyncStream<ConnectionInput>, authenticatedAs claims: TokenClaims?) async {
        let limits = runtime.limits
        var logger = runtime.logger
        logger[metadataKey: "conn"] = "\(socket.id)"
        var state = State(
            requests: TokenBucket(capacity: limits.requestBurst, ratePerSecond: limits.requestsPerSecond),
            lines: TokenBucket(capacity: limits.lineBurst, ratePerSecond: limits.linesPerSecond),
            joins: TokenBucket(capacity: limits.joinBurst, ratePerSecond: limits.joinsPerMinute / 60),
            errors: TokenBucket(capacity: limits.errorBurst, ratePerSecond: limits.errorsPerSecond),
            logger: logger)
        if let claims { await authenticate(claims, &state) }
        for await input in stream {
            if state.closed { continue }
            switch input {
            case .text(let text):
                await handle(text, &state)
            case .detached(let generation, _):
                if generation == state.generation { state.session = nil }
            case .authTimeout:
                if state.user == nil { close(.policyViolation, "auth_timeout: no token within \(limits.authTimeoutSeconds) s", &state) }
            }
        }
        if let user = state.user { runtime.channels.remove(socket, of: user.id) }
        if let session = state.session, let user = state.user {
            await session.disconnected(userId: user.id, linkId: socket.id)
        }
    }

    // MARK: Requests

    private func handle(_ text: String, _ state: inout State) async {
        // Size: refused by the transport from the frame header (close 1009, HubWebSocketRouter).
        let now = runtime.clock.now()
        let message: ClientMessage
        switch runtime.decoder.decode(text) {
        case .failure(let error):
            runtime.metrics.received("invalid")
            if state.user == nil { return close(.policyViolation, "auth_required: send auth first", &state) }
            return fail(error.code.rawValue, error.message, ref: error.ref, &state)
        case .success(let decoded):
            message = decoded
            runtime.metrics.received(decoded.request.type)
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
        guard state.requests.take(now: now) else {
            return fail("rate_limited", "too many requests; slow down", ref: message.id, &state)
        }
        switch await runtime.account.answer(message.request, user: user, ref: message.id) {
        case .success(let text): return send(text)
        case .failure(let error): return fail(error.code, error.message, ref: message.id, &state)
        case nil: break
        }
        do throws(HubError) {
            try await dispatch(message, user: user, now: now, &state)
        } catch {
            fail(error.code.rawValue, error.message, ref: message.id, &state)
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
        case .auth:
            throw HubError(.notAllowed, "this connection is already authenticated")
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
            guard state.joins.take(now: now) else { throw HubError(.rateLimited, "too many join attempts; wait a minute") }
            let link = nextLink(&state)
            state.session = try await hub.join(user: user, code: code, link: link, ref: ref)
        case .resume(let token, let lastSeq):
            try requireLobby(state)
            guard state.joins.take(now: now) else { throw HubError(.rateLimited, "too many resume attempts; wait a minute") }
            let link = nextLink(&state)
            state.session = try await hub.resume(user: user, resumeToken: token, lastSeq: lastSeq, link: link, ref: ref)
        case .say(let native, let translated):
            let session = try requireSession(state)
            try takeLine(now, &state)
            try await session.say(userId: user.id, textNative: native, textTranslated: translated, ref: ref)
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
            fail("too_many_connections", "this user already has \(most) connections open; close one first", ref: ref, &state)
            return close(.policyViolation, "too_many_connections: at most \(most) per user", &state)
        }
        state.user = user
        runtime.channels.add(socket, of: user.id)
        state.logger[metadataKey: "user"] = "\(user.id)"
        state.logger.debug("authenticated")
        await sendWelcome(user, ref: ref)
    }

    private func sendWelcome(_ user: HubUser, ref: String? = nil) async {
        let resumable = await runtime.hub.session(of: user.id)?.id
        send(ServerMessageEncoder.welcome(userId: user.id, displayName: user.displayName,
                                          serverTime: runtime.clock.now(), limits: runtime.advertisedLimits,
                                          resumable: resumable, ref: ref))
    }

    private func nextLink(_ state: inout State) -> SocketParticipantLink {
        state.generation += 1
        return SocketParticipantLink(socket: socket, inputs: inputs, generation: state.generation, metrics: runtime.metrics)
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
        guard state.lines.take(now: now) else {
            throw HubError(.rateLimited, "at most \(Int(runtime.limits.linesPerSecond)) lines per second")
        }
    }

    private func send(_ text: String) {
        socket.send(text: text)
        runtime.metrics.replied()
    }

    /// Replies `error`; a connection that keeps erring is closed with 1008.
    private func fail(_ code: String, _ message: String, ref: String?, _ state: inout State) {
        send(ServerMessageEncoder.error(code: code, message: message, ref: ref))
        runtime.metrics.failed(code)
        if !state.errors.take(now: runtime.clock.now()) {
            close(.policyViolation, "too many invalid requests", &state)
        }
    }

    private func close(_ code: WebSocketCloseCode, _ reason: String, _ state: inout State) {
        state.logger.info("closing connection", metadata: ["code": "\(code.rawValue)", "reason": "\(reason)"])
        state.closed = true
        socket.close(code: code, reason: String(reason.utf8.prefix(123)) ?? "")
    }
}
