import Foundation
import HubDomain
import Logging
import NIOCore
import Synchronization
import WebSocket
import WebSocketTransport

/// The live feed behind the operator dashboard: `GET /admin/feed` (WebSocket).
///
/// A connection authenticates with its first message, `{"type":"auth","token":"<admin JWT>"}`
/// (never in the URL, which proxies log), within ``DashboardFeedSettings/authTimeout``. A missing, bad,
/// expired or non-admin token closes it with **1008** and a reason `<code>: <message>`. Only
/// authenticated feeds take one of the ``DashboardFeedSettings/maxConnections`` operators' places (past them a
/// new one is closed with **1013**); feeds still waiting for their `auth` are bounded apart
/// (``DashboardFeedSettings/maxPendingConnections``, the oldest waiting one closed with 1013 to let a new one
/// in), so unauthenticated sockets can never keep an operator out. Once in, it gets a
/// `welcome`, then a `snapshot` every ``DashboardFeedSettings/interval`` until it closes (or its token
/// expires: 1008 `token_expired`). The format is in docs/DASHBOARD.md.
///
/// One snapshot is built per tick for all feeds (server figures, and every live session with
/// its participants and last lines and recasts, through the hub's read-only inspection API),
/// encoded once and sent to each; the ticking stops when no feed is left. Messages per second
/// come from the differences of the `/metrics` counters between ticks.
final class DashboardFeed: Sendable {
    /// Why a feed was refused (its close code and reason).
    struct Refusal: Error, Sendable, Equatable {
        var code: WebSocketCloseCode
        var reason: String
    }

    private struct Subscriber: Sendable {
        let socket: WebSocketSocket
        let operatorId: String
        /// The token's `exp` (epoch seconds).
        let expiresAt: Int
    }

    private struct Counters: Sendable {
        var at: Int64
        var messagesIn: Double
        var broadcastsOut: Double
        var repliesOut: Double
    }

    /// A feed admitted that has not authenticated yet.
    private struct Pending: Sendable {
        let socket: WebSocketSocket
        /// Admission order: the smallest is the oldest.
        let order: UInt64
    }

    /// What ``admit(_:)`` decided.
    enum Admission: Sendable {
        /// Refused: close the new feed with this.
        case refused(Refusal)
        /// Admitted; `evicted`, when not nil, is the oldest waiting feed, which made room and
        /// must be closed with the refusal given.
        case admitted(evicted: (socket: WebSocketSocket, refusal: Refusal)?)
    }

    private struct State: Sendable {
        /// Feeds admitted that have not authenticated yet.
        var pending: [UInt64: Pending] = [:]
        var admissions: UInt64 = 0
        /// Feeds holding an operator's place (authenticated; subscribed once welcomed).
        var places: Set<UInt64> = []
        var subscribers: [UInt64: Subscriber] = [:]
        var ticking = false
        var stopped = false
        var previous: Counters?
        /// The latest snapshot, for a feed that joins between ticks.
        var latest: (at: Int64, text: String)?
    }

    let console: OperatorConsole
    let settings: DashboardFeedSettings
    private let metrics: MetricsSource?
    private let state = Mutex(State())

    init(console: OperatorConsole, metrics: MetricsSource?, settings: DashboardFeedSettings = DashboardFeedSettings()) {
        self.console = console
        self.metrics = metrics
        self.settings = settings
    }

    private var logger: Logger { console.logger }

    /// Feeds authenticated now.
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    // MARK: Connections

    private var placesTaken: Refusal {
        Refusal(code: .tryAgainLater, reason: "too many dashboard feeds (at most \(settings.maxConnections))")
    }

    /// Admits a new feed to wait for its `auth`: refused when the server is stopping or every
    /// operator's place is taken; when ``DashboardFeedSettings/maxPendingConnections`` feeds wait already,
    /// the oldest of them gives up its room.
    func admit(_ socket: WebSocketSocket) -> Admission {
        state.withLock { state in
            if state.stopped { return .refused(Refusal(code: .goingAway, reason: "server shutting down")) }
            guard state.places.count < settings.maxConnections else { return .refused(placesTaken) }
            var evicted: (WebSocketSocket, Refusal)?
            if state.pending.count >= max(1, settings.maxPendingConnections),
               let oldest = state.pending.values.min(by: { $0.order < $1.order }) {
                state.pending[oldest.socket.id] = nil
                evicted = (oldest.socket, Refusal(code: .tryAgainLater,
                                                  reason: "too many dashboard feeds waiting for auth; the oldest is closed"))
            }
            state.admissions += 1
            state.pending[socket.id] = Pending(socket: socket, order: state.admissions)
            return .admitted(evicted: evicted)
        }
    }

    /// Forgets a feed admitted with ``admit(_:)`` once it closed, giving back its place or room.
    func release(_ socket: WebSocketSocket) {
        state.withLock { state in
            state.pending[socket.id] = nil
            state.places.remove(socket.id)
            state.subscribers[socket.id] = nil
        }
    }

    /// Moves a waiting feed that authenticated into one of the operators' places; the refusal
    /// when every place is taken or the feed no longer waits (it made room for a newer one).
    func takePlace(_ socket: WebSocketSocket) -> Refusal? {
        state.withLock { state in
            guard state.pending.removeValue(forKey: socket.id) != nil else {
                return Refusal(code: .tryAgainLater, reason: "too many dashboard feeds waiting for auth; the oldest is closed")
            }
            guard state.places.count < settings.maxConnections else { return placesTaken }
            state.places.insert(socket.id)
            return nil
        }
    }

    /// Checks the first message of a feed: an `auth` carrying a valid admin token.
    func authenticate(_ text: String) -> Result<TokenClaims, Refusal> {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              object["type"] as? String == "auth", let token = object["token"] as? String else {
            return .failure(Refusal(code: .policyViolation,
                                    reason: #"auth_required: the first message must be {"type":"auth","token":"…"}"#))
        }
        let claims: TokenClaims
        do {
            claims = try console.tokens.verify(token, now: Int(console.clock.now() / 1000))
        } catch {
            return .failure(Refusal(code: .policyViolation, reason: "\(error.code): \(error.description)"))
        }
        guard claims.isAdmin else {
            return .failure(Refusal(code: .policyViolation, reason: "forbidden: an admin token is required"))
        }
        return .success(claims)
    }

    /// Adds an authenticated feed that took a place (``takePlace(_:)``): sends `welcome` and the
    /// latest snapshot, and starts the ticking if it was idle.
    func subscribe(_ socket: WebSocketSocket, claims: TokenClaims) {
        let welcome: [String: Any] = [
            "type": "welcome",
            "operator": ["userId": claims.sub, "name": claims.name],
            "expiresAt": claims.exp,
            "intervalMs": Int(settings.interval / .milliseconds(1)),
            "recentLines": settings.recentLines,
            "maxSessions": settings.maxSessions,
            "version": BuildInfo.version,
        ]
        socket.send(text: Self.encode(welcome))
        let now = console.clock.now()
        let (start, latest) = state.withLock { state -> (Bool, String?) in
            guard !state.stopped else { return (false, nil) }
            state.subscribers[socket.id] = Subscriber(socket: socket, operatorId: claims.sub, expiresAt: claims.exp)
            let latest = state.latest.flatMap { now - $0.at < 1500 ? $0.text : nil }
            guard !state.ticking else { return (false, latest) }
            state.ticking = true
            return (true, latest)
        }
        if let latest { socket.send(text: latest) }
        logger.info("dashboard feed opened", metadata: ["conn": "\(socket.id)", "operator": "\(claims.sub)"])
        if start {
            Task { await self.tick() }
        }
    }

    /// Stops the ticking for good and refuses new feeds (server shutdown; the open ones are
    /// closed with the other connections).
    func stop() {
        state.withLock { $0.stopped = true }
    }

    // MARK: Ticking

    private func tick() async {
        let clock = ContinuousClock()
        while true {
            let started = clock.now
            let targets = state.withLock { state -> [Subscriber]? in
                guard !state.stopped, !state.subscribers.isEmpty else {
                    state.ticking = false
                    state.previous = nil
                    state.latest = nil
                    return nil
                }
                return Array(state.subscribers.values)
            }
            guard let targets else { return }
            let now = console.clock.now()
            let text = Self.encode(await snapshot(now: now))
            state.withLock { $0.latest = (now, text) }
            let seconds = Int(now / 1000)
            for subscriber in targets {
                if subscriber.expiresAt <= seconds {
                    state.withLock { _ = $0.subscribers.removeValue(forKey: subscriber.socket.id) }
                    logger.info("closing connection", metadata: ["conn": "\(subscriber.socket.id)", "code": "1008",
                                                                 "reason": "expired", "operator": "\(subscriber.operatorId)"])
                    subscriber.socket.close(code: .policyViolation, reason: "token_expired: token expired")
                } else {
                    subscriber.socket.send(text: text)
                }
            }
            try? await Task.sleep(until: started.advanced(by: settings.interval), clock: clock)
        }
    }

    /// One snapshot: server figures and the live sessions.
    func snapshot(now: Int64) async -> [String: Any] {
        let inspections = await console.hub.inspectSessions(now: now)
        var chosen = inspections
        if chosen.count > settings.maxSessions {
            let recent = Set(chosen.sorted { $0.lastActivityAt > $1.lastActivityAt }.prefix(settings.maxSessions).map(\.sessionId))
            chosen = chosen.filter { recent.contains($0.sessionId) }
        }
        var sessions: [[String: Any]] = []
        // The sessions as their detail views saw them (read after the list): the server's counts
        // below use these too, so that a snapshot never shows a seat in grace in its session and
        // connected in its totals.
        var latest: [String: SessionInspection] = [:]
        for inspection in chosen {
            // The detail view copies the transcript; only its tail is sent. A session that ended
            // in between is left out.
            guard var detail = await console.hub.inspectSession(id: inspection.sessionId, now: now) else { continue }
            latest[inspection.sessionId] = detail
            detail.lines = detail.lines.map { Array($0.suffix(settings.recentLines)) }
            detail.recasts = detail.recasts.map { Array($0.suffix(settings.recentRecasts)) }
            sessions.append(AdminAPI.sessionView(detail, node: console.nodeId, now: now))
        }
        // A cluster node shows its peers' sessions too (each says its node).
        var sessionCount = inspections.count
        var nodes: [[String: Any]] = [["node": console.nodeId, "reachable": true, "sessions": inspections.count]]
        if let relay = console.relay {
            let gathered = await relay.gather("/admin/api/sessions?tail=\(settings.recentLines)",
                                              authorization: "Bearer \(console.nodeToken())")
            for peer in gathered.peers {
                guard let list = peer.object?["sessions"] as? [[String: Any]] else {
                    nodes.append(["node": peer.node.nodeId, "reachable": false, "error": peer.error ?? "no sessions"])
                    continue
                }
                sessionCount += list.count
                sessions += list.prefix(max(0, settings.maxSessions - sessions.count))
                nodes.append(["node": peer.node.nodeId, "reachable": true, "sessions": list.count])
            }
        }

        var shared = 0, seats = 0, connected = 0, grace = 0
        var linesPerSecond = 0.0
        for listed in inspections {
            let inspection = latest[listed.sessionId] ?? listed
            if inspection.shared { shared += 1 }
            for participant in inspection.present {
                seats += 1
                if participant.status == .connected { connected += 1 } else { grace += 1 }
            }
            linesPerSecond += inspection.messagesPerSecond
        }

        var server: [String: Any] = [
            "version": BuildInfo.version,
            "uptimeSeconds": console.uptimeSeconds,
            "draining": console.isDraining,
            "connections": console.connectionCount,
            "dashboards": subscriberCount,
            "liveSessions": inspections.count,
            "sharedSessions": shared,
            "seats": seats,
            "connectedSeats": connected,
            "graceSeats": grace,
            "linesPerSecond": (linesPerSecond * 100).rounded() / 100,
        ]
        server.merge(await rates(now: now)) { $1 }
        return [
            "type": "snapshot",
            "serverTime": now,
            "server": server,
            "node": console.nodeId,
            "nodes": nodes,
            "sessionCount": sessionCount,
            "truncated": sessionCount > sessions.count,
            "sessions": sessions,
        ]
    }

    /// Messages in (client requests), broadcasts and replies out per second since the previous
    /// tick, from the `/metrics` counters; null on the first tick.
    private func rates(now: Int64) async -> [String: Any] {
        guard let metrics else {
            return ["messagesInPerSecond": NSNull(), "messagesOutPerSecond": NSNull(), "playersConnected": NSNull()]
        }
        let figures = Self.metricFigures(await metrics.render())
        let current = Counters(at: now, messagesIn: figures.messagesIn, broadcastsOut: figures.broadcastsOut,
                               repliesOut: figures.repliesOut)
        let previous = state.withLock { state -> Counters? in
            defer { state.previous = current }
            return state.previous
        }
        var result: [String: Any] = [
            "messagesInTotal": Int(figures.messagesIn),
            "messagesOutTotal": Int(figures.broadcastsOut + figures.repliesOut),
            "playersConnected": figures.usersConnected.map { Int($0) as Any } ?? NSNull(),
        ]
        if let previous, now > previous.at {
            let seconds = Double(now - previous.at) / 1000
            func rate(_ delta: Double) -> Double { (max(0, delta) / seconds * 100).rounded() / 100 }
            result["messagesInPerSecond"] = rate(current.messagesIn - previous.messagesIn)
            result["messagesOutPerSecond"] = rate(current.broadcastsOut + current.repliesOut
                - previous.broadcastsOut - previous.repliesOut)
        } else {
            result["messagesInPerSecond"] = NSNull()
            result["messagesOutPerSecond"] = NSNull()
        }
        return result
    }

    /// The totals the feed reads from the Prometheus text of `/metrics`.
    static func metricFigures(_ text: String) -> (messagesIn: Double, broadcastsOut: Double, repliesOut: Double, usersConnected: Double?) {
        var messagesIn = 0.0, broadcastsOut = 0.0, repliesOut = 0.0
        var users: Double?
        for line in text.split(separator: "\n") where line.hasPrefix("sessionhub_") {
            let name = line.prefix { $0 != "{" && $0 != " " }
            guard let last = line.split(separator: " ").last, let value = Double(last) else { continue }
            switch name {
            case "sessionhub_messages_in_total": messagesIn += value
            case "sessionhub_broadcasts_out_total": broadcastsOut += value
            case "sessionhub_replies_out_total": repliesOut += value
            case "sessionhub_users_connected": users = value
            default: break
            }
        }
        return (messagesIn, broadcastsOut, repliesOut, users)
    }

    static func encode(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }

    // MARK: Upgrade checks

    /// Whether a browser's `Origin` (when it sent one) names the host it connected to, so that
    /// another site's page cannot open the feed (the token is still required). Host names are
    /// compared without ports: a reverse proxy forwards `Host` without one.
    static func isSameOrigin(_ request: HandshakeRequest) -> Bool {
        guard let origin = request.values(of: "Origin").first else { return true }
        guard let host = request.values(of: "Host").first,
              let components = URLComponents(string: origin), let originHost = components.host,
              ["http", "https"].contains(components.scheme?.lowercased() ?? "") else { return false }
        return hostName(host) == originHost.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
    }

    /// `host[:port]` or `[v6][:port]` → the host name, lower-cased, without brackets.
    private static func hostName(_ value: String) -> String {
        let trimmed = value.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed.hasPrefix("["), let close = trimmed.firstIndex(of: "]") {
            return String(trimmed[trimmed.index(after: trimmed.startIndex)..<close])
        }
        if let colon = trimmed.lastIndex(of: ":") { return String(trimmed[..<colon]) }
        return trimmed
    }
}

