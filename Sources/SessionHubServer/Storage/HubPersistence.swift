import HubDomain
import HubProtocol
import HubStorage
import Logging
import NIOCore

/// Where the hub keeps what must outlive a connection or the process: the session journal,
/// history, learner records and the repositories behind the HTTP API, plus the upkeep they need.
///
/// ``sqlite(path:logger:)`` is the embedded default of `sessionhub serve`; ``inMemory()`` keeps
/// everything in memory (tests, demos) and serves no `/api` routes.
public struct HubPersistence: Sendable {
    /// The session journal; when it is a ``HubDomain/RecoverableJournal`` the hub rebuilds the
    /// sessions a crash left open before it listens.
    public var journal: any SessionJournal
    /// Saves ended sessions.
    public var history: any HistoryWriter
    /// Known words and streaks.
    public var learners: any LearnerRecords
    /// The repositories behind `/api` and `/admin`; nil serves 404 there.
    public var stores: HubStores?
    /// Periodic upkeep (retrying history writes that failed), run every
    /// ``HubServerConfiguration/maintenanceInterval`` and once at start.
    public var maintenance: (@Sendable () async -> Void)?
    /// Releases the storage; called on shutdown once every session has ended or been handed
    /// over, before the event loops stop.
    public var close: (@Sendable () async -> Void)?
    /// The cluster this node belongs to (its registry and directory); nil for a lone hub.
    public var cluster: ClusterStorage?
    /// A readiness check of a store the server does not know (`/readyz`): runs a real query and
    /// returns the ended sessions waiting for a history retry; `storageKind` names the store.
    public var probe: (@Sendable () async throws -> Int?)?
    /// What ``probe`` checks (`postgresql`, …).
    public var storageKind: String?

    /// Bundles the parts.
    public init(journal: any SessionJournal, history: any HistoryWriter, learners: any LearnerRecords,
                stores: HubStores? = nil, maintenance: (@Sendable () async -> Void)? = nil,
                close: (@Sendable () async -> Void)? = nil, cluster: ClusterStorage? = nil) {
        self.journal = journal
        self.history = history
        self.learners = learners
        self.stores = stores
        self.maintenance = maintenance
        self.close = close
        self.cluster = cluster
    }

    /// Everything in memory: nothing survives the process, nobody is premium.
    public static func inMemory() -> HubPersistence {
        HubPersistence(journal: InMemorySessionJournal(), history: InMemoryHistoryWriter(),
                       learners: InMemoryLearnerRecords())
    }

    /// One node of an ``HubDomain/InMemoryCluster``: several hubs in one process sharing a
    /// journal, a directory and a node registry (tests and demos of the cluster's behaviour;
    /// history and learners are this node's own, in memory).
    public static func inMemoryCluster(_ node: InMemoryCluster.Node, history: any HistoryWriter = InMemoryHistoryWriter()) -> HubPersistence {
        HubPersistence(journal: node, history: history, learners: InMemoryLearnerRecords(),
                       cluster: ClusterStorage(registry: node, directory: node))
    }

    /// The SQLite file at `path` (created with its directories and schema when missing): one
    /// ``SQLiteStore`` for history, learners, profiles and progress, and a group-commit
    /// ``SQLiteJournal`` in its own file beside it (``SQLiteJournal/path(besideStore:)``),
    /// committing at most once per `commitInterval`
    /// (``HubServerConfiguration/journalCommitInterval``). Upkeep retries sealed history writes.
    /// - Parameter commitLoop: the hub's event loop when it has only one: the journal then
    ///   commits on it (``EventLoopCommitRunner``) instead of on a thread of its own.
    public static func sqlite(path: String, logger: Logger,
                              commitInterval: TimeAmount = HubServerConfiguration(secret: []).journalCommitInterval,
                              commitLoop: (any EventLoop)? = nil) throws -> HubPersistence {
        let store = try SQLiteStore(path: path)
        let journal: SQLiteJournal
        do {
            let runner: any SQLiteCommitRunner = commitLoop.map { EventLoopCommitRunner(eventLoop: $0) } ?? DispatchCommitRunner()
            journal = try SQLiteJournal(path: SQLiteJournal.path(besideStore: path),
                                        commitInterval: .nanoseconds(commitInterval.nanoseconds), decoder: BroadcastDecoder(),
                                        runner: runner)
        } catch {
            store.close()
            throw error
        }
        do {
            // Rows from before the journal had its own file, then the sessions whose history a
            // crash wrote without dropping their journal: neither may be rebuilt twice or lost.
            let adopted = try journal.adoptRows(from: store.database)
            let forgotten = try journal.forgetEnded(in: store.database)
            if adopted > 0 || forgotten > 0 {
                logger.notice("journal reconciled", metadata: ["moved_rows": "\(adopted)", "ended_sessions_dropped": "\(forgotten)"])
            }
        } catch {
            journal.close()
            store.close()
            throw error
        }
        let stores = HubStores(profiles: store, history: store, progress: store)
        return HubPersistence(
            journal: journal, history: store, learners: store, stores: stores,
            maintenance: {
                let written = await store.retrySealed()
                do {
                    try journal.forgetEnded(in: store.database)
                    try journal.sweepEnded()
                } catch {
                    logger.warning("journal upkeep failed", metadata: ["error": "\(error)"])
                }
                let waiting = (try? store.sealedCount()) ?? -1
                if written > 0 || waiting > 0 {
                    logger.notice("history retry", metadata: ["written": "\(written)", "waiting": "\(waiting)"])
                }
            },
            close: {
                journal.close()
                store.close()
            })
    }
}
