import Foundation
import HubDomain
import Synchronization

/// The hub's embedded store on one SQLite file (WAL): profiles, premium audit, history,
/// progress and learner records, and the history writer that saves ended sessions.
///
/// Conforms to ``ProfileRepository``, ``HistoryRepository``, ``ProgressRepository``,
/// `HubDomain.LearnerRecords` and `HubDomain.HistoryWriter`. One instance is shared by the
/// whole process: it is `Sendable` and serializes its work on one connection
/// (``SQLiteDatabase``); async methods run their (short) SQLite work synchronously under that
/// lock. The store reads no clock: every time it records comes from its arguments.
///
/// A history write that fails is not lost: the ended session is kept in `sealed_sessions`
/// (or, if even that write fails, in memory) and ``retrySealed()`` writes it later.
public final class SQLiteStore: Sendable {
    /// The default location of the database file, relative to the working directory.
    public static let defaultPath = "data/sessionhub.sqlite"

    /// The database (for the journal, maintenance and tests).
    public let database: SQLiteDatabase
    /// The background checkpointer, when the store opened the file itself.
    public let checkpointer: SQLiteCheckpointer?

    private let faults = Mutex(0)
    /// Ended sessions whose history write failed and which could not be sealed to disk either.
    private let unsealed = Mutex<[EndedSession]>([])
    private let learnerFailures = Atomic<Int>(0)
    /// The word states an ended session's review looks up first (``WordReviewCache``).
    let reviewCache: Mutex<WordReviewCache>

    /// Opens (creating it, its parent directories and its schema if needed) the store at `path`.
    ///
    /// With a `checkpointInterval` (default 500 ms) the WAL is checkpointed in the background by
    /// a ``SQLiteCheckpointer`` and never inside a commit; with nil, SQLite's automatic
    /// checkpoint is kept.
    ///
    /// - Parameter wordReviewCacheCapacity: how many learners' word states (in words) the store
    ///   keeps in memory for ended sessions' reviews (``defaultWordReviewCacheCapacity``; 0: none).
    ///   The store must be the file's only writer.
    public init(path: String = SQLiteStore.defaultPath,
                checkpointInterval: Duration? = SQLiteCheckpointer.defaultInterval,
                wordReviewCacheCapacity: Int = SQLiteStore.defaultWordReviewCacheCapacity) throws {
        (database, checkpointer) = try SQLiteCheckpointer.openWriter(path: path, migrations: SQLiteMigrator.hubSchema,
                                                                     interval: checkpointInterval)
        reviewCache = Mutex(WordReviewCache(capacity: wordReviewCacheCapacity))
    }

    /// Uses an open database (its schema must be ``SQLiteMigrator/hubSchema``); the caller
    /// owns it and its checkpointing.
    public init(database: SQLiteDatabase,
                wordReviewCacheCapacity: Int = SQLiteStore.defaultWordReviewCacheCapacity) {
        self.database = database
        self.checkpointer = nil
        reviewCache = Mutex(WordReviewCache(capacity: wordReviewCacheCapacity))
    }

    /// How many word states (SM-2, per learner and word) the store keeps in memory by default, so
    /// that an ended session's review reads only the words it has not seen: 1,000,000, about 105 MB
    /// once full (the words of some 10,000 learners who each met 80; known words count a quarter
    /// of a state). Fewer than the active learners' words and the cache keeps dropping learners
    /// before they play again.
    public static let defaultWordReviewCacheCapacity = WordReviewCache.defaultCapacity

    /// Room the word review cache takes now, in word states (known words count a quarter each;
    /// ``defaultWordReviewCacheCapacity``), for tests and metrics.
    public var cachedWordReviews: Int { reviewCache.withLock { $0.count } }

    /// Runs `body` in one write transaction; what it noted of word reviews and known words goes to the cache once
    /// it has committed, still under the connection's lock, so the next transaction sees it.
    func writeTransaction<T: Sendable>(_ body: (SQLiteConnection, inout WordReviewCache.Changes) throws -> T) throws -> T {
        try database.withConnection { db in
            var changes = WordReviewCache.Changes()
            let result = try db.transaction { try body(db, &changes) }
            if !changes.isEmpty { reviewCache.withLock { $0.record(changes) } }
            return result
        }
    }

    /// Stops the checkpointer and closes the database; later calls fail. Close the journal
    /// first when it shares the database.
    public func close() {
        checkpointer?.close()
        database.close()
    }

    /// Fault-injection hook for tests: the next `failNextWrites` history-write transactions
    /// (``save(_:)`` and each session retried by ``retrySealed()``) fail after doing their
    /// writes, so they roll back exactly as a real SQLite failure would. 0 (the default) in
    /// production.
    public var failNextWrites: Int {
        get { faults.withLock { $0 } }
        set { faults.withLock { $0 = max(0, newValue) } }
    }

    /// How many `LearnerRecords` calls failed since the store opened (they cannot throw: a
    /// failed read answers no known words, a failed streak answers 1, a failed record is skipped).
    public var learnerRecordFailures: Int { learnerFailures.load(ordering: .relaxed) }

    /// Throws the injected failure if one is pending.
    func consumeInjectedFault() throws {
        let inject = faults.withLock { count -> Bool in
            guard count > 0 else { return false }
            count -= 1
            return true
        }
        if inject { throw StorageError("injected write failure (failNextWrites)") }
    }

    func noteLearnerFailure() {
        learnerFailures.add(1, ordering: .relaxed)
    }

    /// Keeps an ended session in memory when it could not even be sealed to disk.
    func keepUnsealed(_ session: EndedSession) {
        unsealed.withLock { $0.append(session) }
    }

    /// Takes the sessions kept in memory.
    func takeUnsealed() -> [EndedSession] {
        unsealed.withLock { sessions in
            let taken = sessions
            sessions.removeAll()
            return taken
        }
    }

    /// How many ended sessions in memory wait for a history write (not yet sealed to disk).
    public var unsealedInMemory: Int { unsealed.withLock { $0.count } }

    package static func encode<T: Encodable>(_ value: T) throws -> Data {
        do {
            return try JSONEncoder().encode(value)
        } catch {
            throw StorageError("encode \(T.self): \(error)")
        }
    }

    package static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw StorageError("decode \(T.self): \(error)")
        }
    }
}
