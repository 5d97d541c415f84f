import HubDomain
import HubProtocol
import HubStorage
import HubStoragePostgres
import Logging
import NIOCore
import PostgresNIO
import SessionHubServer

extension HubPersistence {
    /// A node of a cluster on the PostgreSQL database at `url` (schema migrated on open): the
    /// journal (group commit, fenced by ownership), history, learners, profiles and progress,
    /// and the node registry and session directory. A lone node on PostgreSQL is a cluster of one.
    /// - Parameter commitsInFlight: the most journal commits in flight at once
    ///   (``SessionHubServer/ClusterSettings/journalCommitsInFlight``).
    /// - Parameter eventLoopGroup: where the database connections run: the hub's own loops (see
    ///   ``HubServer/init(configuration:clock:persistence:eventLoopGroup:logger:)``), so the
    ///   database's I/O needs no threads of its own.
    /// - Throws: ``HubStorage/StorageError`` naming the URL (without its password) when the
    ///   database cannot be reached or migrated.
    public static func postgres(url: PostgresURL, node: NodeLocation, internalURL: String,
                                eventLoopGroup: any EventLoopGroup = PostgresClient.defaultEventLoopGroup,
                                commitsInFlight: Int = PostgresJournal.defaultCommitsInFlight,
                                logger: Logger) async throws -> HubPersistence {
        let pool = try await PostgresPool.open(url, eventLoopGroup: eventLoopGroup, journalConnections: commitsInFlight,
                                               logger: logger)
        // The committers run on a loop of the hub's own (the journal's connections and the
        // sessions are on them too): with one loop, a commit needs no thread switch at all.
        let journal = PostgresJournal(pool: pool, nodeId: node.nodeId, decoder: BroadcastDecoder(),
                                      committerExecutor: EventLoopTaskExecutor.on(eventLoopGroup.next()))
        let store = PostgresStore(pool: pool, nodeId: node.nodeId)
        let cluster = PostgresClusterNode(local: node, internalURL: internalURL, pool: pool, journal: journal)
        var persistence = HubPersistence(
            journal: journal, history: store, learners: store,
            stores: HubStores(profiles: store, history: store, progress: store),
            maintenance: {
                let written = await store.retrySealed()
                let waiting = store.unsealedInMemory
                if written > 0 || waiting > 0 {
                    logger.notice("history retry", metadata: ["written": "\(written)", "waiting": "\(waiting)"])
                }
            },
            close: { await pool.shutdown() },
            cluster: ClusterStorage(registry: cluster, directory: cluster))
        persistence.storageKind = "postgresql"
        persistence.probe = { try await store.probe() }
        return persistence
    }
}
