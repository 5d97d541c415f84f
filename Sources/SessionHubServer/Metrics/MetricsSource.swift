import HubDomain
import Synchronization
import WebSocketTransport

/// What `/metrics` renders: the hub's counters plus the figures read at scrape time (open
/// connections and transport totals from the WebSocket server, live sessions from the hub).
/// The server is attached once it exists, since the HTTP routes are made before it.
final class MetricsSource: Sendable {
    let metrics: HubMetrics
    private let hub: Hub
    private let channels: UserChannels
    private let server = Mutex<WebSocketServer?>(nil)

    init(metrics: HubMetrics, hub: Hub, channels: UserChannels) {
        self.metrics = metrics
        self.hub = hub
        self.channels = channels
    }

    /// Gives the source the server whose connections it reports.
    func attach(_ server: WebSocketServer) {
        self.server.withLock { $0 = server }
    }

    /// Every metric in Prometheus text format.
    func render() async -> String {
        var solo = 0, shared = 0
        for session in await hub.liveSessions {
            if session.isShared { shared += 1 } else { solo += 1 }
        }
        let joins = await hub.joinFailureCounts
        metrics.joinFigures(failures: joins.failures, lockouts: joins.lockouts)
        let server = self.server.withLock { $0 }
        return metrics.render(connections: server?.connectionCount ?? 0, sessions: (solo, shared), users: channels.userCount,
                              statistics: server?.statistics ?? WebSocketStatistics())
    }
}
