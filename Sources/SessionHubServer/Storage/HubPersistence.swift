import Foundation
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
    /// ``SQLiteStore`` for history, learners, profiles and progress, and a group-commit journal
    /// beside it, committing at most once per `commitInterval`
    /// (``HubServerConfiguration/journalCommitInterval``): the `journal` kind, by default
    /// ``JournalKind/default`` (the log): with `.log` a ``LogJournal`` in a directory
    /// (``LogJournal/directory(besideStore:)``), with `.sqlite` a ``SQLiteJournal`` in its own file
    /// (``SQLiteJournal/path(besideStore:)``). Open sessions left in the other kind
    /// of journal (a switch between them) move into this one at start. Upkeep retries sealed
    /// history writes and keeps the journal small.
    /// - Parameters:
    ///   - commitLoop: the hub's event loop when it has only one: the journal then commits on it
    ///     (``EventLoopCommitRunner``) instead of on a thread of its own.
    ///   - appenderLoops: the hub's event loops: with several, the log journal commits on the loop
    ///     of the append that schedules the commit (``AppenderLoopCommitRunner``); ignored with
    ///     `commitLoop` and by the SQLite journal.
    ///   - wordReviewCacheCapacity: ``HubServerConfiguration/wordReviewCacheCapacity``.
    public static func sqlite(path: String, logger: Logger,
                              commitInterval: TimeAmount = HubServerConfiguration(secret: []).journalCommitInterval,
                              commitLoop: (any EventLoop)? = nil, appenderLoops: [any EventLoop] = [],
                              journal kind: JournalKind = .default,
                              wordReviewCacheCapacity: Int = SQLiteStore.defaultWordReviewCacheCapacity) throws -> HubPersistence {
        let store = try SQLiteStore(path: path, wordReviewCacheCapacity: wordReviewCacheCapacity)
        let runner: any SQLiteCommitRunner
        if let commitLoop {
            runner = EventLoopCommitRunner(eventLoop: commitLoop)
        } else if kind == .log, !appenderLoops.isEmpty {
            runner = AppenderLoopCommitRunner(loops: appenderLoops, fallback: DispatchCommitRunner())
        } else {
            runner = DispatchCommitRunner()
        }
        let interval = Duration.nanoseconds(commitInterval.nanoseconds)
        let journal: any LocalJournal
        do {
            switch kind {
            case .sqlite:
                journal = try SQLiteJournal(path: SQLiteJournal.path(besideStore: path), commitInterval: interval,
                                            decoder: BroadcastDecoder(), runner: runner)
            case .log:
                let log = try LogJournal(directory: LogJournal.directory(besideStore: path), commitInterval: interval,
                                         decoder: BroadcastDecoder(), runner: runner,
                                         onFailure: JournalUpkeep.failureHandler(logger))
                JournalUpkeep.logRecovery(of: log, logger: logger)
                journal = log
            }
        } catch {
            store.close()
            throw error
        }
        do {
            // The rows the store's file kept from before the journal had its own (schema up to
            // 5), then the sessions of the other kind of journal (a switch), then the sessions
            // whose history a crash wrote without dropping their journal: none may be rebuilt
            // twice or lost.
            let adopted = try journal.adoptRows(from: store.database)
            let moved = try moveOtherJournal(besideStore: path, into: journal, kind: kind, logger: logger)
            let forgotten = try journal.forgetEnded(in: store.database)
            if adopted > 0 || moved > 0 || forgotten > 0 {
                logger.notice("journal reconciled", metadata: [
                    "moved_sessions": "\(adopted + moved)", "ended_sessions_dropped": "\(forgotten)",
                ])
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
                JournalUpkeep.run(journal, store: store.database, logger: logger)
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

    /// Moves the open sessions of the other kind of journal than `kind`, left beside the store at
    /// `storePath` by a hub that ran with the other `--journal`, into `journal` (which makes them
    /// durable), then deletes the other journal; returns how many sessions moved. A crash in
    /// between moves them again at the next start: a journal reads a repeated row once. A log
    /// directory is renamed before it is deleted, and the rename is synced before the first file
    /// goes, so that a crash in the middle of deleting it never leaves a part of it to be read as
    /// a journal (its `quarantine/` goes with it; what its recovery set aside is logged). An
    /// SQLite file is checkpointed whole first (`wal_checkpoint(TRUNCATE)`: the file holds
    /// everything, the WAL nothing), so whatever a crash leaves of its files is all or nothing.
    static func moveOtherJournal(besideStore storePath: String, into journal: any LocalJournal,
                                 kind: JournalKind, logger: Logger) throws -> Int {
        let files = FileManager.default
        let folder = (storePath as NSString).deletingLastPathComponent
        let parent = folder.isEmpty ? "." : folder
        switch kind {
        case .sqlite:
            let directory = LogJournal.directory(besideStore: storePath)
            let removed = directory + ".removed"
            if files.fileExists(atPath: removed) { try files.removeItem(atPath: removed) }
            guard files.fileExists(atPath: directory) else { return 0 }
            let old = try LogJournal(directory: directory, decoder: BroadcastDecoder(),
                                     onFailure: JournalUpkeep.failureHandler(logger))
            JournalUpkeep.logRecovery(of: old, logger: logger)
            let moved = try move(from: old, into: journal)
            try files.moveItem(atPath: directory, toPath: removed)
            try LogJournal.syncDirectory(parent)  // the rename, before anything in it goes
            try files.removeItem(atPath: removed)
            try LogJournal.syncDirectory(parent)
            return moved
        case .log:
            let path = SQLiteJournal.path(besideStore: storePath)
            guard files.fileExists(atPath: path) else { return 0 }
            let old = try SQLiteJournal(path: path, decoder: BroadcastDecoder(), checkpointInterval: nil)
            let moved = try move(from: old, into: journal) {
                // Everything into the file itself and the WAL emptied, rather than trusting the
                // checkpoint of the last close: the files then go in any order.
                let done = try old.database.withConnection { db in
                    try db.queryFirst("PRAGMA wal_checkpoint(TRUNCATE)") { $0.int(0) == 0 } ?? false
                }
                guard done else {
                    throw StorageError("journal \(path): its WAL could not be checkpointed before it is deleted (busy)")
                }
            }
            for file in [path + "-wal", path + "-shm", path] where files.fileExists(atPath: file) {
                try files.removeItem(atPath: file)
            }
            try LogJournal.syncDirectory(parent)
            return moved
        }
    }

    /// Copies the open sessions of `old` into `journal`, runs `finish` (still on `old`), then
    /// closes `old`; returns how many.
    private static func move(from old: any LocalJournal, into journal: any LocalJournal,
                             finish: () throws -> Void = {}) throws -> Int {
        defer { old.close() }
        let sessions = try old.exportSessions()
        try journal.importSessions(sessions)
        try finish()
        return sessions.count
    }
}
