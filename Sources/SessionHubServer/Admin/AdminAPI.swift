import Foundation
import HubDomain
import HubProtocol
import NIOCore
import NIOHTTP1
import WebSocketTransport

/// The operator API under `/admin/api/`: JSON, an admin bearer token on every request.
///
/// | route | answer |
/// |---|---|
/// | `GET /admin/api/server` | connections, live sessions, uptime, version, build, storage, draining |
/// | `GET /admin/api/sessions` | every live session of the cluster (no transcript; `?tail=N` adds the last N lines and recasts), each with its `node` |
/// | `GET /admin/api/sessions/{id}` | one session with its transcript and recasts |
/// | `POST /admin/api/sessions/{id}/end` | ends it (`operatorEnded`), answers the end summary |
/// | `DELETE /admin/api/sessions/{id}/participants/{userId}` | removes a participant (`left{removed}`) |
///
/// Errors use the API's shape (`{"error":true,"code","message","details":null}`): 401 without
/// a valid token, 403 `forbidden` with a token that is not an operator's, 404 `not_found`,
/// 405 `method_not_allowed`, 409 `session_ended` when the session is already ending.
///
/// On a cluster node, a request about a session another node owns is relayed to that node
/// (``ClusterRelay``) and its answer returned: 502 `node_unreachable` when it does not answer,
/// 503 `session_moving` while no node owns the session (its owner died and no peer has adopted
/// it yet). The list gathers every live node's sessions and says, under `nodes`, which nodes
/// answered.
/// Tokens are verified like every other (HS256, constant-time signature compare) and never
/// logged; each action is logged with the operator's user id.
struct AdminAPI: Sendable {
    let console: OperatorConsole

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        do {
            let claims = try authenticate(request)
            return try await route(request, operator: claims)
        } catch {
            return error.response
        }
    }

    private func authenticate(_ request: HTTPRequest) throws(APIError) -> TokenClaims {
        let claims = try console.tokens.authenticate(request, clock: console.clock)
        guard claims.isAdmin else { throw APIError(.forbidden, "forbidden", "an admin token is required") }
        return claims
    }

    private func route(_ request: HTTPRequest, operator claims: TokenClaims) async throws(APIError) -> HTTPResponse {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true)
            .map { String($0).removingPercentEncoding ?? String($0) }
        guard parts.count >= 3, parts[0] == "admin", parts[1] == "api" else { throw APIError.notFound() }
        let rest = Array(parts.dropFirst(2))
        let method = request.head.method
        func allow(_ allowed: HTTPMethod...) throws(APIError) {
            guard allowed.contains(method) else {
                throw APIError(.methodNotAllowed, "method_not_allowed", "\(method) is not allowed on \(request.path.prefix(100))")
            }
        }
        let now = console.clock.now()
        if rest.count >= 2, rest[0] == "sessions", let answer = try await relayed(request, sessionId: rest[1]) {
            return answer
        }
        switch rest.count {
        case 1 where rest[0] == "server":
            try allow(.GET)
            return json(.ok, await serverView(now: now))
        case 1 where rest[0] == "sessions":
            try allow(.GET)
            return json(.ok, try await sessionList(request, now: now))
        case 2 where rest[0] == "sessions":
            try allow(.GET)
            guard let session = await console.hub.inspectSession(id: rest[1], now: now) else {
                throw Self.apiError(OperatorError.unknownSession(rest[1]))
            }
            return json(.ok, Self.sessionView(session, node: console.nodeId, now: now))
        case 3 where rest[0] == "sessions" && rest[2] == "end":
            try allow(.POST)
            let summary: SessionEndSummary
            do {
                summary = try await console.hub.endSession(id: rest[1])
            } catch {
                throw Self.apiError(error)
            }
            console.logger.notice("operator ended a session", metadata: [
                "operator": "\(claims.sub)", "session": "\(rest[1])", "participants": "\(summary.participants.count)",
            ])
            return json(.ok, Self.endView(sessionId: rest[1], summary))
        case 4 where rest[0] == "sessions" && rest[2] == "participants":
            try allow(.DELETE)
            let removal: OperatorRemoval
            do {
                removal = try await console.hub.removeParticipant(userId: rest[3], fromSession: rest[1])
            } catch {
                throw Self.apiError(error)
            }
            console.logger.notice("operator removed a participant", metadata: [
                "operator": "\(claims.sub)", "session": "\(rest[1])", "user": "\(rest[3].prefix(128))",
                "sessionEnded": "\(removal.sessionEnded)",
            ])
            return json(.ok, ["sessionId": rest[1], "removed": removal.userId, "hostId": removal.hostId as Any,
                              "sessionEnded": removal.sessionEnded])
        default:
            throw APIError.notFound()
        }
    }

    // MARK: Cluster

    /// The answer of the node that owns `sessionId` when that is another node; nil when this
    /// node is to answer (it owns the session, no node does, or the request was relayed here).
    private func relayed(_ request: HTTPRequest, sessionId: String) async throws(APIError) -> HTTPResponse? {
        guard let relay = console.relay, !ClusterRelay.isRelayed(request) else { return nil }
        let placement: SessionPlacement?
        do {
            placement = try await console.hub.placement(ofSession: sessionId)
        } catch {
            throw APIError(.serviceUnavailable, error.code.rawValue, error.message, retryAfter: error.retryAfterSeconds ?? 1)
        }
        guard let placement else { return nil }
        guard let owner = placement.owner else {
            throw APIError(.serviceUnavailable, "session_moving",
                           "no node owns session \(sessionId.prefix(64)) right now (its node is being replaced); try again shortly",
                           retryAfter: 1)
        }
        guard owner.nodeId != relay.local.nodeId else { return nil }
        return await relay.forward(request, to: owner)
    }

    /// This node's live sessions, and on a cluster node every live peer's (unless the request
    /// was relayed here).
    private func sessionList(_ request: HTTPRequest, now: Int64) async throws(APIError) -> [String: Any] {
        var tail: Int?
        if let text = request.query("tail") {
            guard let value = Int(text), (0...50).contains(value) else { throw .badRequest("tail must be an integer from 0 to 50") }
            tail = value
        }
        var views: [[String: Any]] = []
        for inspection in await console.hub.inspectSessions(now: now) {
            guard let tail else {
                views.append(Self.sessionView(inspection, node: console.nodeId, now: now))
                continue
            }
            guard var detail = await console.hub.inspectSession(id: inspection.sessionId, now: now) else { continue }
            detail.lines = detail.lines.map { Array($0.suffix(tail)) }
            detail.recasts = detail.recasts.map { Array($0.suffix(tail)) }
            views.append(Self.sessionView(detail, node: console.nodeId, now: now))
        }
        var body: [String: Any] = ["serverTime": now, "node": console.nodeId]
        if let relay = console.relay, !ClusterRelay.isRelayed(request) {
            var nodes: [[String: Any]] = [["node": console.nodeId, "reachable": true, "sessions": views.count]]
            let gathered = await relay.gather(request.head.uri, authorization: request.head.headers["Authorization"].first)
            for peer in gathered.peers {
                if let list = peer.object?["sessions"] as? [[String: Any]] {
                    views += list
                    nodes.append(["node": peer.node.nodeId, "reachable": true, "sessions": list.count])
                } else {
                    nodes.append(["node": peer.node.nodeId, "reachable": false, "error": peer.error ?? "no sessions"])
                }
            }
            body["nodes"] = nodes
            if let error = gathered.error { body["clusterError"] = error }
        }
        body["count"] = views.count
        body["sessions"] = views
        return body
    }

    // MARK: Views

    private func serverView(now: Int64) async -> [String: Any] {
        let counts = await console.hub.operatorCounts()
        let storage = await console.storage.probe()
        var build: [String: Any] = ["configuration": BuildInfo.configuration, "swift": BuildInfo.compiler,
                                    "platform": BuildInfo.platform]
        build["stamp"] = BuildInfo.stamp ?? NSNull()
        return [
            "version": BuildInfo.version,
            "node": console.nodeId,
            "build": build,
            "protocolVersion": ProtocolVersion.current,
            "serverTime": now,
            "startedAt": console.startedAt,
            "uptimeSeconds": console.uptimeSeconds,
            "draining": console.isDraining,
            "connections": console.connectionCount,
            "liveSessions": counts.sessions,
            "sharedSessions": counts.sharedSessions,
            "seats": counts.seats,
            "connectedSeats": counts.connectedSeats,
            "storage": Self.storageView(storage),
        ]
    }

    static func storageView(_ health: StorageProbe.Health) -> [String: Any] {
        ["kind": health.kind, "reachable": health.reachable,
         "sealedSessions": health.sealedSessions ?? NSNull(), "error": health.error ?? NSNull()]
    }

    static func sessionView(_ session: SessionInspection, node: String, now: Int64) -> [String: Any] {
        func participant(_ p: SessionInspection.Participant) -> [String: Any] {
            var view: [String: Any] = [
                "userId": p.userId, "displayName": p.displayName, "role": p.roleName, "mode": p.mode.rawValue,
                "isHost": p.isHost, "status": p.status.rawValue, "connected": p.status == .connected,
                "inGrace": p.status == .grace, "joinedAt": p.joinedAt, "linesSpoken": p.linesSpoken,
                "recastsGiven": p.recastsGiven, "recastsReceived": p.recastsReceived, "recastsAccepted": p.recastsAccepted,
            ]
            view["graceDeadline"] = p.graceDeadline ?? NSNull()
            view["graceSecondsLeft"] = p.graceDeadline.map { max(0, $0 - now + 999) / 1000 } ?? NSNull()
            return view
        }
        let host = session.present.first { $0.isHost }
        var view: [String: Any] = [
            "sessionId": session.sessionId,
            "node": node,
            "mode": session.shared ? "shared" : "solo",
            "scenario": ["id": session.scenarioId, "title": session.scenarioTitle, "targetLanguage": session.targetLanguage],
            "phase": session.phase.rawValue,
            "maxPlayers": session.maxPlayers,
            "participants": session.present.map(participant),
            "departed": session.participants.filter { $0.status == .departed }.map(participant),
            "lineCount": session.lineCount,
            "recastCount": session.recastCount,
            "acceptedRecastCount": session.acceptedRecastCount,
            "goalReached": session.goalReached,
            "seq": session.seq,
            "startedAt": session.startedAt,
            "ageSeconds": session.ageSeconds,
            "lastActivityAt": session.lastActivityAt,
            "idleSeconds": max(0, now - session.lastActivityAt) / 1000,
            "messagesPerSecond": session.messagesPerSecond,
            "rateWindowSeconds": Double(session.rateWindowMillis) / 1000,
            "failedJournalAppends": session.failedJournalAppends,
            "undelivered": session.undelivered,
        ]
        view["endStage"] = session.endStage.map { ["stage": $0.rawValue, "since": session.endStageSince ?? now] as [String: Any] } ?? NSNull()
        view["journalWriteSince"] = session.journalWriteSince ?? NSNull()
        view["joinCode"] = session.joinCode ?? NSNull()
        view["host"] = host.map { ["userId": $0.userId, "displayName": $0.displayName] as [String: Any] } ?? NSNull()
        if let lines = session.lines { view["lines"] = jsonValue(lines) }
        if let recasts = session.recasts { view["recasts"] = jsonValue(recasts) }
        return view
    }

    static func endView(sessionId: String, _ summary: SessionEndSummary) -> [String: Any] {
        [
            "sessionId": sessionId,
            "cause": summary.cause.rawValue,
            "endedAt": summary.endedAt,
            "durationSeconds": summary.durationSeconds,
            "goalReached": summary.goalReached,
            "participants": summary.participants.map { figures -> [String: Any] in
                let history: String
                switch summary.history[figures.userId] {
                case .success: history = "success"
                case .error(let reason): history = reason.rawValue
                case nil: history = "none"
                }
                return ["userId": figures.userId, "linesSpoken": figures.stats.linesSpoken,
                        "xpEarned": figures.stats.xpEarned, "history": history]
            },
        ]
    }

    /// A Codable value as JSONSerialization objects.
    private static func jsonValue(_ value: some Encodable) -> Any {
        guard let data = try? JSONEncoder().encode(value),
              let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return NSNull() }
        return object
    }

    static func apiError(_ error: OperatorError) -> APIError {
        switch error {
        case .unknownSession, .unknownParticipant: return APIError(.notFound, error.code, error.description)
        case .sessionEnding: return APIError(.conflict, error.code, error.description)
        }
    }

    private func json(_ status: HTTPResponseStatus, _ object: [String: Any]) -> HTTPResponse {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return .json(status, ByteBuffer(bytes: data))
    }
}
