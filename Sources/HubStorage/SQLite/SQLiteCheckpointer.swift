import Dispatch
import Synchronization

/// Copies the WAL back into the database file in the background, on its own connection, so
/// that no commit of the store or the journal pays for it.
///
/// SQLite's automatic checkpoint runs inside the commit that crosses 1000 WAL pages and
/// fsyncs the database file there: with it, a few percent of commits take an extra ~10 ms.
/// ``SQLiteStore`` therefore opens its connection with `wal_autocheckpoint=0` and runs one of
/// these, which issues `PRAGMA wal_checkpoint(PASSIVE)` every ``interval`` (default 500 ms).
/// A passive checkpoint never blocks writers or readers; once it has copied every frame, the
/// next writer starts the WAL over from its beginning, so the file stays small.
public final class SQLiteCheckpointer: Sendable {
    /// The time between two checkpoints.
    public let interval: Duration
    private let database: SQLiteDatabase
    private let queue = DispatchQueue(label: "sessionhub.sqlite.checkpoint", qos: .utility)
    private let state = Mutex(State())

    private struct State: Sendable {
        var stopped = false
        var checkpoints = 0
        var lastError: String?
    }

    /// Opens a second connection to the (already migrated) database at `path` and starts.
    public init(path: String, interval: Duration = .milliseconds(500)) throws {
        self.database = try SQLiteDatabase(path: path, migrations: [])
        self.interval = interval
        schedule()
    }

    /// Checkpoints run so far.
    public var checkpointCount: Int { state.withLock { $0.checkpoints } }

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

    /// Stops (waiting for a running checkpoint) and closes the connection. Idempotent.
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

    private func tick() {
        if state.withLock({ $0.stopped }) { return }
        do {
            try checkpoint()
            state.withLock { $0.lastError = nil }
        } catch {
            state.withLock { $0.lastError = String(describing: error) }
        }
        schedule()
    }
}
