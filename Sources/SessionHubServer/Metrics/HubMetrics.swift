import CoreMetrics
import Dispatch
import HubProtocol
import Metrics
import Prometheus
import Synchronization
import WebSocketTransport

/// The hub's metrics: swift-metrics instruments on a Prometheus registry of the server's own
/// (no process-wide bootstrap, so every ``HubServer`` — and every test — counts alone).
/// ``render(connections:sessions:users:statistics:)`` writes them in Prometheus text format for `/metrics`.
///
/// | name | type | labels |
/// |---|---|---|
/// | `sessionhub_connections` | gauge | — |
/// | `sessionhub_users_connected` | gauge | — |
/// | `sessionhub_sessions` | gauge | `mode` = `solo`, `shared` |
/// | `sessionhub_messages_in_total` | counter | `type` = the client message type, or `invalid` |
/// | `sessionhub_broadcasts_out_total` | counter | `type` = the broadcast type (one per recipient) |
/// | `sessionhub_replies_out_total` | counter | — |
/// | `sessionhub_connections_moved_total` | counter | — (connections moved to their session's event loop on join or resume) |
/// | `sessionhub_fanout_latency_seconds` | histogram | — (from a change being accepted to its frame being handed to each member's socket, journal commit included) |
/// | `sessionhub_errors_total` | counter | `code` |
/// | `sessionhub_history_writes_total` | counter | `result` = `success`, `feature_locked`, `failed` |
/// | `sessionhub_slow_client_disconnects_total` | counter | — |
/// | `sessionhub_outbound_dropped_total` | counter | — (messages for connections already closing) |
/// | `sessionhub_connections_refused_total` | counter | `reason` = `max_connections` (closed on accept), `per_address`, `unauthenticated_per_address`, `per_user` |
/// | `sessionhub_http_timeouts_total` | counter | `phase` = `head`, `body`, `idle` (HTTP-phase deadlines passed) |
/// | `sessionhub_join_failures_total` | counter | — (joins with a code of no live session, counted against the user's and the address's budgets) |
/// | `sessionhub_join_lockouts_total` | counter | — (users or addresses locked out of joining: their failure budget was spent) |
/// | `sessionhub_cluster_events_total` | counter | `event` = `adopted`, `handed_over`, `relinquished` (sessions), `evicted` (this node declared dead), `peer_dead` (peers this node declared dead) |
/// | `sessionhub_journal_commit_seconds` | histogram | — (from a journal write's start to its commit, or failure: group commit included) |
/// | `sessionhub_event_loop_lag_seconds` | histogram | — (how late a task due on an event loop ran, probed on every loop every 50 ms: ``EventLoopLagProbe``) |
/// | `sessionhub_journal_writes_total` | counter | `result` = `ok`, `failed`, `fenced` |
/// | `sessionhub_node_info` | gauge | `node` (`--node-id`, `local` alone), `version` — always 1 |
/// | `sessionhub_uptime_seconds` | gauge | — |
final class HubMetrics: Sendable {
    private let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    private let started = DispatchTime.now().uptimeNanoseconds

    private let fanOut: Metrics.Timer
    private let journalCommit: Metrics.Timer
    private let loopLag: Metrics.Timer
    private let broadcasts: [ServerMessageType: CoreMetrics.Counter]
    private let messagesIn: [ClientMessageType: CoreMetrics.Counter]
    private let invalidMessages: CoreMetrics.Counter
    private let journalWrites: [JournalWriteResult: CoreMetrics.Counter]
    private let replies: CoreMetrics.Counter
    private let moves: CoreMetrics.Counter
    private let connections: CoreMetrics.Gauge
    private let users: CoreMetrics.Gauge
    private let soloSessions: CoreMetrics.Gauge
    private let sharedSessions: CoreMetrics.Gauge
    private let uptime: CoreMetrics.Gauge
    private let slowClients: CoreMetrics.Counter
    private let dropped: CoreMetrics.Counter
    private let refused: [ConnectionRefusal: CoreMetrics.Counter]
    private let timeouts: [HTTPPhase: CoreMetrics.Counter]
    private let transportSeen = Mutex((slow: 0, dropped: 0, refused: [ConnectionRefusal: Int](), timeouts: [HTTPPhase: Int]()))
    private let joinFailures: CoreMetrics.Counter
    private let joinLockouts: CoreMetrics.Counter
    private let joinsSeen = Mutex((failures: 0, lockouts: 0))
    private let labelled = Mutex<[String: CoreMetrics.Counter]>([:])

    /// A fresh registry and its instruments.
    init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["sessionhub_fanout_latency_seconds"] = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .seconds(1),
        ]
        factory.durationHistogramBuckets["sessionhub_journal_commit_seconds"] = [
            .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
            .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .seconds(1),
        ]
        factory.durationHistogramBuckets["sessionhub_event_loop_lag_seconds"] = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .seconds(1),
        ]
        self.factory = factory
        loopLag = Metrics.Timer(label: "sessionhub_event_loop_lag_seconds", dimensions: [], factory: factory)
        journalCommit = Metrics.Timer(label: "sessionhub_journal_commit_seconds", dimensions: [], factory: factory)
        fanOut = Metrics.Timer(label: "sessionhub_fanout_latency_seconds", dimensions: [], factory: factory)
        // The counters a message or a delivery touches are made here once, not looked up by name
        // on every message.
        broadcasts = Dictionary(uniqueKeysWithValues: ServerMessageType.broadcasts.map { type in
            (type, CoreMetrics.Counter(label: "sessionhub_broadcasts_out_total", dimensions: [("type", type.rawValue)], factory: factory))
        })
        messagesIn = Dictionary(uniqueKeysWithValues: ClientMessageType.allCases.map { type in
            (type, CoreMetrics.Counter(label: "sessionhub_messages_in_total", dimensions: [("type", type.rawValue)], factory: factory))
        })
        invalidMessages = CoreMetrics.Counter(label: "sessionhub_messages_in_total", dimensions: [("type", "invalid")], factory: factory)
        journalWrites = Dictionary(uniqueKeysWithValues: JournalWriteResult.allCases.map { result in
            (result, CoreMetrics.Counter(label: "sessionhub_journal_writes_total", dimensions: [("result", result.rawValue)], factory: factory))
        })
        replies = CoreMetrics.Counter(label: "sessionhub_replies_out_total", dimensions: [], factory: factory)
        moves = CoreMetrics.Counter(label: "sessionhub_connections_moved_total", dimensions: [], factory: factory)
        connections = CoreMetrics.Gauge(label: "sessionhub_connections", dimensions: [], factory: factory)
        users = CoreMetrics.Gauge(label: "sessionhub_users_connected", dimensions: [], factory: factory)
        soloSessions = CoreMetrics.Gauge(label: "sessionhub_sessions", dimensions: [("mode", "solo")], factory: factory)
        sharedSessions = CoreMetrics.Gauge(label: "sessionhub_sessions", dimensions: [("mode", "shared")], factory: factory)
        uptime = CoreMetrics.Gauge(label: "sessionhub_uptime_seconds", dimensions: [], factory: factory)
        slowClients = CoreMetrics.Counter(label: "sessionhub_slow_client_disconnects_total", dimensions: [], factory: factory)
        dropped = CoreMetrics.Counter(label: "sessionhub_outbound_dropped_total", dimensions: [], factory: factory)
        joinFailures = CoreMetrics.Counter(label: "sessionhub_join_failures_total", dimensions: [], factory: factory)
        joinLockouts = CoreMetrics.Counter(label: "sessionhub_join_lockouts_total", dimensions: [], factory: factory)
        var refused: [ConnectionRefusal: CoreMetrics.Counter] = [:]
        for reason in ConnectionRefusal.allCases {
            refused[reason] = CoreMetrics.Counter(label: "sessionhub_connections_refused_total",
                                                  dimensions: [("reason", reason.rawValue)], factory: factory)
        }
        self.refused = refused
        var timeouts: [HTTPPhase: CoreMetrics.Counter] = [:]
        for phase in HTTPPhase.allCases {
            timeouts[phase] = CoreMetrics.Counter(label: "sessionhub_http_timeouts_total",
                                                  dimensions: [("phase", phase.rawValue)], factory: factory)
        }
        self.timeouts = timeouts
    }

    // MARK: Recording

    /// A broadcast of `type` handed to one member's socket, `nanoseconds` after it was accepted.
    func delivered(_ type: ServerMessageType, after nanoseconds: UInt64) {
        broadcasts[type]?.increment()
        fanOut.recordNanoseconds(Int64(clamping: nanoseconds))
    }

    /// One journal write: how long it took to be durable (or to fail), and how it ended.
    func journalWrite(_ result: JournalWriteResult, nanoseconds: UInt64) {
        journalCommit.recordNanoseconds(Int64(clamping: nanoseconds))
        journalWrites[result]?.increment()
    }

    /// An event loop ran a task due on it `nanoseconds` late (``EventLoopLagProbe``).
    func loopLag(nanoseconds: Int64) {
        loopLag.recordNanoseconds(nanoseconds)
    }

    /// This node's identity, once: `sessionhub_node_info{node, version} 1`.
    func nodeInfo(node: String, version: String) {
        CoreMetrics.Gauge(label: "sessionhub_node_info", dimensions: [("node", node), ("version", version)], factory: factory).record(1)
    }

    /// A reply written to one connection.
    func replied() { replies.increment() }

    /// A connection moved to its session's event loop.
    func connectionMoved() { moves.increment() }

    /// A client message of `type` received; `nil` when it could not be decoded (`type="invalid"`).
    func received(_ type: ClientMessageType?) {
        guard let type else { return invalidMessages.increment() }
        messagesIn[type]?.increment()
    }

    /// An `error` sent with `code`.
    func failed(_ code: String) { counter("sessionhub_errors_total", "code", code).increment() }

    /// Cluster events: `adopted`, `handed_over`, `relinquished` (per session), `evicted` (this
    /// node declared dead), `peer_dead` (per peer this node declared dead).
    func clusterEvent(_ event: String, count: Int) {
        guard count > 0 else { return }
        counter("sessionhub_cluster_events_total", "event", event).increment(by: Int64(count))
    }

    /// One participant's history write: `success`, `feature_locked` or `failed`.
    func historyWrite(_ result: String) { counter("sessionhub_history_writes_total", "result", result).increment() }

    /// Brings the join counters up to the hub's totals (read at scrape time from its
    /// `JoinFailureLedger`).
    func joinFigures(failures: Int, lockouts: Int) {
        let (newFailures, newLockouts) = joinsSeen.withLock { seen -> (Int, Int) in
            defer { seen = (failures, lockouts) }
            return (failures - seen.failures, lockouts - seen.lockouts)
        }
        if newFailures > 0 { joinFailures.increment(by: newFailures) }
        if newLockouts > 0 { joinLockouts.increment(by: newLockouts) }
    }

    // MARK: Scraping

    /// Sets the gauges and transport counters, then writes every metric in Prometheus text format.
    func render(connections: Int, sessions: (solo: Int, shared: Int), users: Int, statistics: WebSocketStatistics) -> String {
        self.connections.record(connections)
        self.users.record(users)
        soloSessions.record(sessions.solo)
        sharedSessions.record(sessions.shared)
        uptime.record(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
        let (slow, drops, refusals, expired) = transportSeen.withLock { seen in
            let slow = statistics.slowConsumerDisconnects, drops = statistics.droppedFrames
            let refusals = Dictionary(uniqueKeysWithValues: ConnectionRefusal.allCases.map { ($0, statistics.refused($0)) })
            let expired = Dictionary(uniqueKeysWithValues: HTTPPhase.allCases.map { ($0, statistics.httpTimeouts($0)) })
            defer { seen = (slow, drops, refusals, expired) }
            return (slow - seen.slow, drops - seen.dropped,
                    refusals.map { ($0.key, $0.value - seen.refused[$0.key, default: 0]) },
                    expired.map { ($0.key, $0.value - seen.timeouts[$0.key, default: 0]) })
        }
        if slow > 0 { slowClients.increment(by: slow) }
        if drops > 0 { dropped.increment(by: drops) }
        for (reason, count) in refusals where count > 0 { refused[reason]?.increment(by: count) }
        for (phase, count) in expired where count > 0 { timeouts[phase]?.increment(by: count) }
        return registry.emitToString()
    }

    /// A counter with one label, made once per value (label values here come from small fixed sets).
    private func counter(_ name: String, _ label: String, _ value: String) -> CoreMetrics.Counter {
        let key = name + "\u{0}" + value
        return labelled.withLock { cache in
            if let counter = cache[key] { return counter }
            let counter = CoreMetrics.Counter(label: name, dimensions: [(label, value)], factory: factory)
            cache[key] = counter
            return counter
        }
    }
}
