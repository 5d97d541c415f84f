import Dispatch
import Synchronization

/// Copies the WAL back into the database file in the background, on its own connection, so
/// that no commit of the store or the journal pays for it, and keeps the WAL from growing
/// without bound under a steady stream of commits.
///
/// SQLite's automatic checkpoint runs inside the commit that crosses 1000 WAL pages and
/// fsyncs the database file there: with it, a few percent of commits take an extra ~10 ms.
/// ``SQLiteStore`` therefore opens its connection with `wal_autocheckpoint=0` and runs one of
/// these, which issues `PRAGMA wal_checkpoint(PASSIVE)` every ``interval`` (default 500 ms).
/// The background pass never blocks writers or readers.
///
/// SQLite starts the WAL over from its beginning only when a write transaction begins while
/// every frame of the WAL is already in the database file. Under steady load (the journal
/// commits up to once a millisecond) some commit always lands while a background checkpoint
/// is copying, so that never happens and the WAL grows for as long as the load lasts: 1.3 GB
/// in 40 s at 9,000 deliveries/s, every commit writing past the file's end (new pages the
/// kernel zeroes and allocates), with the disk, the shared-memory index and crash recovery
/// growing with it. So when the WAL holds more than ``restartPages`` frames (copied or not)
/// after a background pass, the checkpointer finishes on the writer's own connection
/// (``writer``), after up to ``catchUpPasses`` more background passes that each copy what the
/// one before left, so that little is left for that step: under its lock no
/// commit is in flight, only the frames added since the pass are left to copy, and the next
/// commit starts the WAL over. That step (those frames and a checkpoint's two fsyncs) is the
/// only time a commit can wait for a checkpoint, hence a high ``restartPages``. The writer's
/// connection also keeps `journal_size_limit` (``walSizeLimit``), so a WAL that a burst or a
/// long reader made large is cut back when it starts over.
public final class SQLiteCheckpointer: Sendable {
    /// The time between two checkpoints.
    public let interval: Duration
    /// ``interval`` unless told otherwise: 500 ms.
    public static let defaultInterval = Duration.milliseconds(500)
    /// The WAL size, in frames (copied or not), above which a background pass is finished on
    /// ``writer``'s connection so that the next commit starts the WAL over: 10,000 (about 40 MiB
    /// of 4 KiB pages) by default. It is checked once per ``interval``, so the WAL can outgrow it
    /// by what an interval adds (67 MB seen at 9,000 deliveries/s). That step holds the writer for a checkpoint's two fsyncs, about
    /// 10 ms under heavy load on a small VM (the fsyncs wait for the kernel's writeback), so it
    /// should be rare: at 9,000 deliveries/s the WAL takes about 1.2 s to reach it; at 1,600/s
    /// about 7 s. Once the WAL has started over, SQLite writes into pages the kernel already has,
    /// so the WAL costs no new allocation until it outgrows its first size.
    public let restartPages: Int
    /// At most this many background passes follow the first one before the step on the
    /// writer's connection, each copying what the last one left (``checkpointAndRestart()``).
    static let catchUpPasses = 4
    /// Frames added during a background pass below which the step on the writer's connection
    /// follows at once: about a millisecond's worth of commits at full load.
    static let catchUpFrames = 64
    /// The size the writer's connection cuts the WAL back to when it starts over
    /// (`PRAGMA journal_size_limit`, bytes): 64 MiB.
    public static let walSizeLimit = 64 << 20
    /// The database whose connection makes every write (the store's, shared with the journal),
    /// or nil: then nothing keeps the WAL from growing under steady commits.
    private let writer: SQLiteDatabase?
    private let database: SQLiteDatabase
    private let queue = DispatchQueue(label: "sessionhub.sqlite.checkpoint", qos: .utility)
    private let state = Mutex(State())

    private struct State: Sendable {
        var stopped = false
        var checkpoints = 0
        var restarts = 0
        var lastError: String?
    }

    /// Opens a second connection to the (already migrated) database at `path` and starts.
    /// - Parameters:
    ///   - writer: the database whose connection makes every write to the file (see the type's
    ///     discussion); its `journal_size_limit` is set here.
    ///   - restartPages: see ``restartPages``.
    public init(path: String, interval: Duration = SQLiteCheckpointer.defaultInterval, writer: SQLiteDatabase? = nil,
                restartPages: Int = 10_000) throws {
        if let writer {
            try writer.withConnection { db in
                _ = try db.queryFirst("PRAGMA journal_size_limit=\(Self.walSizeLimit)") { $0.int(0) }
            }
        }
        self.database = try SQLiteDatabase(path: path, migrations: [])
        self.interval = interval
        self.writer = writer
        self.restartPages = max(0, restartPages)
        schedule()
    }

    /// Opens the database file at `path` with `migrations` for writing and, with an `interval`,
    /// a checkpointer for it (SQLite's automatic checkpoint off); with nil, SQLite checkpoints
    /// inside commits. The database is closed again when the checkpointer cannot start.
    static func openWriter(path: String, migrations: [SQLiteMigration],
                           interval: Duration?) throws -> (SQLiteDatabase, SQLiteCheckpointer?) {
        let database = try SQLiteDatabase(path: path, migrations: migrations, autoCheckpoint: interval == nil)
        do {
            return (database, try interval.map { try SQLiteCheckpointer(path: path, interval: $0, writer: database) })
        } catch {
            database.close()
            throw error
        }
    }

    /// Checkpoints run so far (background passes).
    public var checkpointCount: Int { state.withLock { $0.checkpoints } }

    /// Background passes finished on the writer's connection that copied frames the pass had
    /// left (``restartPages``); after each, the next commit starts the WAL over.
    public var restartCount: Int { state.withLock { $0.restarts } }

    /// The last checkpoint failure, if the last one failed.
    public var lastError: String? { state.withLock { $0.lastError } }

    /// Runs one passive checkpoint now; returns the WAL's size and how much of it is in the
    /// database file, in pages.
    @discardableResult
    public func checkpoint() throws -> (walPages: Int, checkpointedPages: Int) {
        let result = try database.withConnection { db in
            try db.queryFirst("PRAGMA wal_checkpoint(PASSIVE)") { ($0.int(1), $0.int(2)) }
        }
        state.withLock { $0.checkpoints += 1 }
        return result ?? (0, 0)
    }

    /// Stops (waiting for a running checkpoint) and closes the connection. Idempotent. Never
    /// call it inside the writer's lock (``SQLiteDatabase/withConnection(_:)``): a running pass
    /// may be waiting for that lock.
    public func close() {
        state.withLock { $0.stopped = true }
        queue.sync {}
        database.close()
    }

    private func schedule() {
        let (seconds, attoseconds) = interval.components
        let nanoseconds = max(1_000_000, Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            self?.tick()
        }
    }

    /// Runs one background pass and, when the WAL holds more than ``restartPages`` frames, up
    /// to ``catchUpPasses`` more (each copies what the one before left; they stop once a pass
    /// saw at most ``catchUpFrames`` added), then finishes on the writer's connection; returns
    /// whether that step left every frame in the database file (then the next commit starts the
    /// WAL over).
    ///
    /// The pass's own figures cannot tell whether commits landed while it copied (it reports
    /// the WAL as it was when it began), so the step runs whenever the WAL is that large; with
    /// nothing left to copy it costs the writer's lock and no fsync.
    @discardableResult
    public func checkpointAndRestart() throws -> Bool {
        var pass = try checkpoint()
        guard let writer, pass.walPages > restartPages else { return false }
        // Catch up outside the writer's lock first: each further pass copies (and fsyncs) only
        // the frames the one before it left, so the step below finds few frames to copy and a
        // WAL that is mostly synced already. A pass that fails leaves the rest to the step; a
        // WAL that started over meanwhile (fewer frames than before) needs no step.
        for _ in 0..<Self.catchUpPasses {
            guard let next = try? checkpoint() else { break }
            let added = next.walPages - pass.walPages
            pass = next
            if added <= Self.catchUpFrames { break }
        }
        guard pass.walPages > restartPages else { return false }
        let step = try writer.withConnection { db in
            try db.queryFirst("PRAGMA main.wal_checkpoint(PASSIVE)") { (busy: $0.int(0), wal: $0.int(1), done: $0.int(2)) }
        }
        guard let step, step.busy == 0, step.done == step.wal else { return false }
        if step.done > pass.checkpointedPages { state.withLock { $0.restarts += 1 } }
        return true
    }

    private func tick() {
        if state.withLock({ $0.stopped }) { return }
        do {
            try checkpointAndRestart()
            state.withLock { $0.lastError = nil }
        } catch {
            state.withLock { $0.lastError = String(describing: error) }
        }
        schedule()
    }
}
