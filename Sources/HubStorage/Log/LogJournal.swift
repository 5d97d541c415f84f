import Dispatch
import Foundation
import HubDomain
import Synchronization

/// The durable ``HubDomain/SessionJournal`` as an append-only log of segment files, with group
/// commit: no B-tree, no write-ahead log of its own and no checkpoint.
///
/// ``append(_:)`` queues the entry and suspends until it is written; a committer (where its
/// ``SQLiteCommitRunner`` says) writes everything queued, across all sessions, as one `pwrite`
/// at the end of the current segment (``LogRecord`` framing, a CRC-32 per record). A written
/// entry survives a crash or `kill -9` of the process (it is in the kernel's page cache). The
/// current segment is `fdatasync`ed in the background (on a queue of the journal's own, never on
/// the committing thread) ``syncInterval`` after the first write since its last sync, and a full
/// one as soon as the next starts (with the directory, when a segment was made since it was last
/// synced): an OS crash or power loss takes back at most the writes of about the last
/// ``syncInterval`` and of a sync under way, as the SQLite journal's WAL (synced by its
/// checkpointer every 500 ms) does. A failed sync is fatal: the journal refuses every later
/// write, sync and compaction (the kernel reports a lost write back only once), and says so
/// through `onFailure`. What is read back is always a prefix of what was written: a record cut
/// short or damaged ends its segment there, and a segment whose start record does not match where
/// the one before it ended (that one lost its tail) is not read, nor any after it; what is not
/// read goes to `quarantine/` (``recovery``).
///
/// While open the journal holds an exclusive lock on its directory (``LogDirectoryLock``): a
/// second journal on the same directory, in this process or another, fails to open.
///
/// A segment holds about ``segmentBytes``; then the next one starts. Segments are deleted from
/// the log's start only, each once no open session has rows in it (a later segment may hold the
/// drop of a session an earlier one opened). The rows of sessions open for long are copied forward out of the oldest segments by
/// ``compact(limit:)`` (the hub's upkeep), so the files on disk stay about ``keptSegments``
/// plus what open sessions hold. Before anything is deleted because of a write (compacted rows,
/// the drops of ``forgetEnded(in:)``, a move from another journal), that write is synced.
///
/// Every record is a session's header (``opened(_:)``), an entry (its broadcast's wire text when
/// it carries it, as ``JournalBody``), or the drop of an ended session (``closed(sessionId:)``).
/// At start the journal reads every segment to learn which sessions are open and where their rows
/// are; ``entries(sessionIds:)`` reads those segments again.
public final class LogJournal: RecoverableJournal {
    /// The files, under the journal's lock (commits, reads, compaction).
    private struct Files: Sendable {
        var current: LogSegment
        /// Earlier segments still on disk, by number.
        var older: [Int: LogSegment]
        var index: LogJournalIndex
        /// Set when a write failed and could not be undone, or a sync failed: every later write,
        /// sync and compaction fails with it.
        var broken: String?
        /// Segments made since the journal opened, and how many of them the last sync of the
        /// directory covers (a segment's data is durable only once its name is). The current one
        /// counts as made at open: a process killed before its sync may have left its name in
        /// the page cache only.
        var created = 1
        var directorySynced = 0
        /// A background sync of the current segment is scheduled (``syncInterval`` after the
        /// first write since the last one).
        var syncScheduled = false
        /// The last attempt to start a segment failed (reported once per run of failures).
        var rotationFailing = false

        /// Every segment on disk, oldest first.
        var all: [LogSegment] { older.keys.sorted().compactMap { older[$0] } + [current] }

        /// `created` when a segment was made since the last directory sync, else nil.
        var directoryToSync: Int? { created > directorySynced ? created : nil }

        /// Deletes segments from the log's start while each is in `free` and no open session has
        /// rows in it (never the current one); returns how many.
        mutating func dropStart(among free: Set<Int>) -> Int {
            var deleted = 0
            while let oldest = older.keys.min(), free.contains(oldest), !index.isLive(oldest) {
                older.removeValue(forKey: oldest)?.delete()
                deleted += 1
            }
            return deleted
        }
    }

    /// The directory of the segment files.
    public let directory: String
    /// About how many bytes a segment holds before the next one starts.
    public let segmentBytes: Int
    /// The least time between two commits.
    public let commitInterval: Duration
    private let decoder: (any SessionEventDecoder)?
    private let queue: GroupCommitQueue<LogRecord>
    private let files: Mutex<Files?>
    /// Every `fdatasync` and directory `fsync` of the journal runs here, one at a time: a
    /// writeback error that one of them reports is never consumed by another.
    private let syncQueue = DispatchQueue(label: "sessionhub.journal.sync", qos: .utility)
    private let lock: LogDirectoryLock
    private let onFailure: (@Sendable (String) -> Void)?
    private let syncs = Atomic<Int>(0)
    private let directorySyncs = Atomic<Int>(0)
    private let rotationFailures = Atomic<Int>(0)
    private let injectedSyncFailures = Atomic<Int>(0)
    private let afterCompactionSync = Mutex<(@Sendable () -> Void)?>(nil)

    /// What recovery set aside when the journal opened (nothing after a clean stop): the hub logs
    /// it as a warning.
    public let recovery: LogRecoveryReport

    /// 16 MiB: at 9,000 deliveries/s a segment lasts about five seconds.
    public static let defaultSegmentBytes = 16 << 20
    /// How long after the first write since the last sync the current segment is synced in the
    /// background: about what an OS crash or power loss can take back (the SQLite journal's
    /// checkpointer syncs its WAL as often, ``SQLiteCheckpointer/defaultInterval``).
    public static let syncInterval: Duration = .milliseconds(500)
    /// Segments left as they are behind the current one: their sessions mostly end before
    /// ``compact(limit:)`` would copy their rows forward.
    public static let keptSegments = 4

    /// Where the journal of the store at `storePath` lives: a directory beside it,
    /// `-journal.log` in place of a `.sqlite` ending (`data/sessionhub.sqlite` →
    /// `data/sessionhub-journal.log/`), else appended.
    public static func directory(besideStore storePath: String) -> String {
        let stem = storePath.hasSuffix(".sqlite") ? String(storePath.dropLast(".sqlite".count)) : storePath
        return stem + "-journal.log"
    }

    /// Makes the entries of `directory` durable (`fsync` of the directory), after files in it
    /// were made, renamed or deleted.
    public static func syncDirectory(_ directory: String) throws {
        try LogSegment.syncDirectory(directory)
    }

    /// Opens (creating it if needed) the journal in `directory`, locks it, and reads its segments
    /// back, keeping the longest prefix of whole records; what it does not keep goes to
    /// `quarantine/` in the directory (``recovery``).
    /// - Parameters:
    ///   - decoder: reads back entries stored as wire text; without one, such rows cannot be read.
    ///   - runner: where the commits run (default: a dispatch queue of the journal's own).
    ///   - onFailure: told (from any thread; it must not call the journal) when a background sync
    ///     fails, which breaks the journal, or when a new segment cannot be made: for the logs.
    /// - Throws: ``StorageError`` when the directory cannot be made or read, or another journal
    ///   holds it (``LogDirectoryLock``).
    public init(directory: String, commitInterval: Duration = .zero, decoder: (any SessionEventDecoder)? = nil,
                runner: any SQLiteCommitRunner = DispatchCommitRunner(label: "sessionhub.journal.log"),
                segmentBytes: Int = LogJournal.defaultSegmentBytes,
                onFailure: (@Sendable (String) -> Void)? = nil) throws {
        try Self.makeDirectory(directory)
        self.directory = directory
        self.segmentBytes = max(4096, segmentBytes)
        self.commitInterval = commitInterval
        self.decoder = decoder
        self.onFailure = onFailure
        self.queue = GroupCommitQueue(interval: commitInterval, runner: runner)
        self.lock = try LogDirectoryLock(directory: directory)
        let (files, recovery) = try Self.recover(directory: directory, segmentBytes: max(4096, segmentBytes))
        self.files = Mutex(files)
        self.recovery = recovery
    }

    /// Creates `directory` (and the directories above it) when missing, and makes each new name
    /// durable (`fsync` of the directory above it).
    private static func makeDirectory(_ directory: String) throws {
        let manager = FileManager.default
        var missing: [String] = []
        var path = directory
        while !path.isEmpty, !manager.fileExists(atPath: path) {
            missing.append(path)
            let parent = (path as NSString).deletingLastPathComponent
            guard parent != path else { break }
            path = parent
        }
        guard !missing.isEmpty else { return }
        do {
            try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw StorageError("create directory \(directory): \(error.localizedDescription)")
        }
        for made in missing.reversed() {
            let parent = (made as NSString).deletingLastPathComponent
            try LogSegment.syncDirectory(parent.isEmpty ? "." : parent)
        }
    }

    /// Reads every segment back in order; see
    /// ``init(directory:commitInterval:decoder:runner:segmentBytes:onFailure:)``. Deletes
    /// nothing: segments the drops just read freed go in the upkeep, after a sync (those drops
    /// may be in the page cache only).
    private static func recover(directory: String, segmentBytes: Int) throws -> (Files, LogRecoveryReport) {
        var index = LogJournalIndex()
        var kept: [LogSegment] = []
        var cut = false
        var quarantine = LogQuarantine(journalDirectory: directory)
        let ids = try LogSegment.ids(in: directory)
        for id in ids {
            let segment = try LogSegment(directory: directory, id: id)
            if cut {
                try quarantine.setAside(segment)
                continue
            }
            let bytes = try segment.read()
            var offset = 0
            var records: [LogRecord] = []
            bytes.withUnsafeBufferPointer { buffer in
                while let (record, next) = LogRecord.decode(buffer, at: offset) {
                    records.append(record)
                    offset = next
                }
            }
            // A segment starts where the one before it ended, else that one lost its tail (an OS
            // crash) and nothing from here on follows from what is kept.
            guard case .start(let previousId, let previousSize) = records.first,
                  kept.last.map({ $0.id == previousId && $0.size == previousSize }) ?? true else {
                try quarantine.setAside(segment)
                cut = true
                continue
            }
            for record in records { index.replay(record, in: id) }
            if offset < bytes.count {
                try quarantine.keepTail(Array(bytes[offset...]), of: segment, at: offset)
                try segment.truncate(to: offset)
                cut = true
            }
            kept.append(segment)
        }
        index.finishReplay()
        if cut {
            // What was cut off or set aside stays so through an OS crash before the next writes.
            try quarantine.sync()
            try kept.last?.sync()
            try LogSegment.syncDirectory(directory)
        }
        let current: LogSegment
        if let last = kept.last, last.size < segmentBytes, !cut {
            current = kept.removeLast()
        } else {
            // A number never used before in this directory, whatever was set aside.
            current = try newSegment(directory: directory, id: (ids.last ?? 0) + 1, after: kept.last)
        }
        let files = Files(current: current, older: Dictionary(uniqueKeysWithValues: kept.map { ($0.id, $0) }),
                          index: index, broken: nil)
        return (files, quarantine.report)
    }

    /// Creates segment `id` after `previous` (the first one when nil) and writes its start record.
    private static func newSegment(directory: String, id: Int, after previous: LogSegment?) throws -> LogSegment {
        let segment = try LogSegment(directory: directory, id: id, create: true)
        var bytes: [UInt8] = []
        try LogRecord.start(previousSegment: previous?.id ?? 0, previousSize: previous?.size ?? 0).encode(into: &bytes)
        do {
            try segment.append(bytes)
        } catch let failure as LogSegment.WriteFailure {
            segment.delete()
            throw StorageError(failure.message)
        }
        return segment
    }

    // MARK: Writing

    /// Appends an entry; returns once it is written. Throws ``StorageError`` when the write
    /// failed or the journal is closed.
    public func append(_ entry: JournalEntry) async throws {
        try await enqueue([try Self.record(entry)])
    }

    /// Appends entries in one write (the next group commit); returns once it is done.
    public func append(contentsOf entries: [JournalEntry]) async throws {
        try await enqueue(try entries.map(Self.record))
    }

    /// Records the session's header (before its first entry), in the next group commit.
    public func opened(_ header: SessionHeader) async throws {
        try await enqueue([.header(sessionId: header.sessionId, startedAt: header.startedAt,
                                   body: Array(try SQLiteStore.encode(header)))])
    }

    /// Drops the session's rows in the next group commit (a drop record); returns once it is
    /// written.
    public func closed(sessionId: String) async {
        try? await enqueue([.drop(sessionId: sessionId)])
    }

    /// The entry's record; throws for one no segment takes (so that the error stays with its
    /// own append instead of failing the batch it would share).
    private static func record(_ entry: JournalEntry) throws -> LogRecord {
        let (kind, body) = try JournalBody.encode(entry)
        guard body.count <= LogRecord.maxLength - 1024, kind.utf8.count <= 255 else {
            throw StorageError("journal: an entry of \(body.count) bytes (kind \(kind.utf8.count) bytes) is over the log's limit")
        }
        return .entry(sessionId: entry.sessionId, seq: entry.seq, timestamp: entry.timestamp, kind: kind, body: body)
    }

    /// Queues records together (they share one write) and returns once it is done.
    private func enqueue(_ records: [LogRecord]) async throws {
        try await queue.enqueue(records) { self.files.withLock { self.commitPending(&$0) } }
    }

    /// Takes everything queued and writes it at the end of the current segment in one write;
    /// runs holding the files' lock.
    private func commitPending(_ files: inout Files?) {
        guard let batch = queue.take() else { return }
        do {
            try write(batch.rows, to: &files, inject: batch.inject)
            queue.finish(batch, error: nil)
        } catch {
            queue.finish(batch, error: error)
        }
    }

    /// Writes `records` in one write at the end of the current segment and takes them into the
    /// index, then starts a new segment when this one is full.
    private func write(_ records: [LogRecord], to files: inout Files?, inject: Bool = false) throws {
        guard var state = files.take() else { throw StorageError("journal is closed") }
        defer { files = state }
        if let broken = state.broken { throw StorageError(broken) }
        if inject { throw StorageError("injected journal commit failure (failNextCommits)") }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(records.reduce(0) { $0 + Self.estimatedSize($1) })
        for record in records { try record.encode(into: &bytes) }
        do {
            try state.current.append(bytes)
        } catch let failure as LogSegment.WriteFailure {
            if !failure.undone { state.broken = failure.message }
            throw StorageError(failure.message)
        }
        for record in records { state.index.apply(record, in: state.current.id) }
        if state.current.size >= segmentBytes { rotate(&state) }
        if !state.syncScheduled {
            state.syncScheduled = true
            syncQueue.asyncAfter(deadline: .now() + Self.dispatchInterval(Self.syncInterval)) { [weak self] in
                self?.syncCurrent()
            }
        }
        // Segments no open session needs go in the upkeep (``compact(limit:)``), after a sync:
        // the drops that freed them must be on the disk before they go.
    }

    /// Starts the next segment after the full current one, which goes to the disk in the
    /// background (recovery needs no more: a segment that lost its tail ends the log there).
    /// When the next one cannot be made, writing goes on in the full one; that is counted
    /// (``failedRotations``) and told to `onFailure` once per run of failures.
    private func rotate(_ state: inout Files) {
        let next: LogSegment
        do {
            next = try Self.newSegment(directory: directory, id: state.current.id + 1, after: state.current)
        } catch {
            rotationFailures.wrappingAdd(1, ordering: .relaxed)
            if !state.rotationFailing {
                state.rotationFailing = true
                onFailure?("journal: cannot start the next segment, writing goes on in \(state.current.path): \(Self.text(error))")
            }
            return
        }
        state.rotationFailing = false
        state.created += 1
        let full = state.current
        state.older[full.id] = full
        state.current = next
        let created = state.directoryToSync
        syncQueue.async { try? self.flush([full], directoryThrough: created) }  // a failure breaks the journal
    }

    private static func estimatedSize(_ record: LogRecord) -> Int {
        switch record {
        case .header(_, _, let body), .entry(_, _, _, _, let body): 80 + body.count
        case .drop, .start: 48
        }
    }

    /// Syncs every segment to the disk (and the directory, when a segment was made since its
    /// last sync), on the sync queue, outside the lock (the files stay open while held).
    private func syncAll() throws {
        let (segments, directory) = try files.withLock { files throws -> ([LogSegment], Int?) in
            guard let files else { throw StorageError("journal is closed") }
            if let broken = files.broken { throw StorageError(broken) }
            return (files.all, files.directoryToSync)
        }
        try syncQueue.sync { try flush(segments, directoryThrough: directory) }
    }

    /// The background sync of the current segment, ``syncInterval`` after a write (on the sync
    /// queue); the next write schedules the next one.
    private func syncCurrent() {
        let work = files.withLock { files -> ([LogSegment], Int?)? in
            files?.syncScheduled = false
            guard let files, files.broken == nil else { return nil }
            return ([files.current], files.directoryToSync)
        }
        guard let (segments, directory) = work else { return }
        try? flush(segments, directoryThrough: directory)  // a failure breaks the journal
    }

    /// Syncs `segments`, then the directory when `created` (segments made, as `Files.created`
    /// counts them) is past its last sync. Runs on the sync queue. A failure breaks the journal and is told to
    /// `onFailure`: after a failed `fdatasync` the kernel may have dropped the writes it could
    /// not make and reports that only once, so a later sync would succeed without them.
    private func flush(_ segments: [LogSegment], directoryThrough created: Int?) throws {
        // A sync before this one on the queue may have failed since the caller looked.
        if let broken = files.withLock({ $0?.broken }) { throw StorageError(broken) }
        do {
            if Self.takeOne(injectedSyncFailures) { throw StorageError("injected journal sync failure (failNextSyncs)") }
            for segment in segments {
                try segment.sync()
                syncs.wrappingAdd(1, ordering: .relaxed)
            }
            // (Another sync may have taken the directory since this one was asked for.)
            if let created, files.withLock({ ($0?.directorySynced ?? 0) < created }) {
                try LogSegment.syncDirectory(directory)
                directorySyncs.wrappingAdd(1, ordering: .relaxed)
                files.withLock { files in
                    if let synced = files?.directorySynced { files?.directorySynced = max(synced, created) }
                }
            }
        } catch {
            let message = "journal: a sync to the disk failed, so it refuses every write until a restart: \(Self.text(error))"
            files.withLock { files in
                if files?.broken == nil { files?.broken = message }
            }
            onFailure?(message)
            throw StorageError(message)
        }
    }

    /// Takes one from a fault-injection counter; false when it is 0.
    private static func takeOne(_ counter: borrowing Atomic<Int>) -> Bool {
        var left = counter.load(ordering: .relaxed)
        while left > 0 {
            let (exchanged, original) = counter.compareExchange(expected: left, desired: left - 1, ordering: .relaxed)
            if exchanged { return true }
            left = original
        }
        return false
    }

    private static func text(_ error: any Error) -> String {
        (error as? StorageError)?.message ?? "\(error)"
    }

    private static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }

    // MARK: Reading

    /// Headers of the sessions not closed, oldest first.
    public func openSessions() async throws -> [SessionHeader] {
        let headers = try files.withLock { files throws -> [(Int64, String, [UInt8])] in
            guard let files else { throw StorageError("journal is closed") }
            return files.index.sessions.compactMap { sessionId, session in
                session.header.map { ($0.startedAt, sessionId, $0.body) }
            }
        }
        return try headers.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map { _, _, body in
            try SQLiteStore.decode(SessionHeader.self, from: Data(body))
        }
    }

    /// The entries of one open session, in `seq` order.
    public func entries(sessionId: String) async throws -> [JournalEntry] {
        try read([sessionId])[sessionId] ?? []
    }

    /// The entries of several open sessions, each in `seq` order, reading each segment that
    /// holds any of them once. Every open session asked for is in the result; others are not. A
    /// `seq` written twice (a write repeated, a row copied forward) counts once, as written last.
    public func entries(sessionIds: [String]) async throws -> [String: [JournalEntry]] {
        try read(sessionIds)
    }

    private func read(_ sessionIds: [String]) throws -> [String: [JournalEntry]] {
        var result: [String: [JournalEntry]] = [:]
        for (sessionId, bySeq) in try readRows(Set(sessionIds)) {
            result[sessionId] = try bySeq.keys.sorted().compactMap { bySeq[$0] }.map { row in
                JournalEntry(sessionId: sessionId, seq: row.seq, timestamp: row.timestamp,
                             event: try JournalBody.decode(row.body, decoder: decoder))
            }
        }
        return result
    }

    /// The rows of the open sessions among `wanted`, by session and `seq` (the last written of a
    /// repeated `seq`), reading each segment that holds any of them once, under the lock. Every
    /// open session asked for is in the result.
    private func readRows(_ wanted: Set<String>) throws -> [String: [Int: ExportedJournalSession.Row]] {
        try files.withLock { files throws -> [String: [Int: ExportedJournalSession.Row]] in
            guard let files else { throw StorageError("journal is closed") }
            var rows: [String: [Int: ExportedJournalSession.Row]] = [:]
            var segments = Set<Int>()
            for sessionId in wanted {
                guard let session = files.index.sessions[sessionId], session.header != nil else { continue }
                rows[sessionId] = [:]
                segments.formUnion(session.segments)
            }
            for id in segments.sorted() {
                guard let segment = id == files.current.id ? files.current : files.older[id] else {
                    throw StorageError("journal: segment \(LogSegment.fileName(id)) holds open sessions' rows and is missing")
                }
                try segment.forEachRecord { record in
                    guard case .entry(let sessionId, let seq, let timestamp, let kind, let body) = record,
                          rows[sessionId] != nil else { return }
                    rows[sessionId]?[seq] = .init(seq: seq, timestamp: timestamp, kind: kind, body: body)
                }
            }
            return rows
        }
    }

    // MARK: Upkeep

    /// Copies the rows of sessions still open out of the oldest segments (those beyond the
    /// current one and the ``keptSegments`` before it) to the end of the log, at most `limit`
    /// segments per call; then syncs the log and deletes, from its start, the segments no open
    /// session needs any more (those it copied out of, and those the drops of ended sessions
    /// freed before the sync); returns how many it deleted. Run it now and then (the hub's
    /// upkeep): segments are deleted nowhere else, so that nothing goes before the writes that
    /// make it unneeded are on the disk. Each segment is read outside the lock and copied in one
    /// write, after the writes queued before it.
    /// - Throws: ``StorageError`` when the journal is closed or broken, a sync fails, or a
    ///   segment to copy out of no longer reads back whole (nothing is deleted then).
    @discardableResult
    public func compact(limit: Int = 64) throws -> Int {
        // The oldest segments past the kept ones that open sessions still need.
        let targets = try files.withLock { files throws -> [(LogSegment, Set<String>)] in
            guard let files else { throw StorageError("journal is closed") }
            if let broken = files.broken { throw StorageError(broken) }
            return files.older.keys.sorted().dropLast(Self.keptSegments).compactMap { id -> (LogSegment, Set<String>)? in
                guard let segment = files.older[id], let sessions = files.index.live[id], !sessions.isEmpty else { return nil }
                return (segment, sessions)
            }.prefix(max(0, limit)).map { $0 }
        }
        for (segment, sessions) in targets {
            var copies: [LogRecord] = []
            try segment.forEachRecord { record in
                switch record {
                case .header, .entry: if sessions.contains(record.sessionId) { copies.append(record) }
                case .drop, .start: break
                }
            }
            try files.withLock { files throws in
                commitPending(&files)
                guard let before = files else { throw StorageError("journal is closed") }
                // Only sessions still open are copied: one that ended meanwhile has no header.
                let open = copies.filter { before.index.sessions[$0.sessionId] != nil }
                if !open.isEmpty { try write(open, to: &files) }
            }
        }
        // The segments free now: the copies out of them and the drops that freed them are
        // written, and the sync below takes them to the disk. One that a drop frees during or
        // after the sync goes at the next pass, after the next sync.
        let free = try files.withLock { files throws -> Set<Int> in
            for (segment, sessions) in targets { files?.index.moved(sessions, from: segment.id) }
            guard let files else { throw StorageError("journal is closed") }
            return Set(files.older.keys.filter { !files.index.isLive($0) })
        }
        try syncAll()
        afterCompactionSync.withLock { $0 }?()
        let deleted = try files.withLock { files throws -> Int in
            guard var state = files.take() else { throw StorageError("journal is closed") }
            defer { files = state }
            if let broken = state.broken { throw StorageError(broken) }
            return state.dropStart(among: free)
        }
        if deleted > 0 { try syncQueue.sync { try LogSegment.syncDirectory(directory) } }
        return deleted
    }

    /// Drops the sessions the store at `store` marked ended (``EndedSessionMarkers``), then the
    /// markers (once the drops are synced); returns how many sessions it dropped. Run it before
    /// ``openSessions()`` at start (a crash between a history write and ``closed(sessionId:)``
    /// must not rebuild an ended session) and now and then.
    @discardableResult
    public func forgetEnded(in store: SQLiteDatabase) throws -> Int {
        guard let (newest, ended) = try EndedSessionMarkers.read(from: store) else { return 0 }
        let dropped = try files.withLock { files throws -> Int in
            commitPending(&files)
            guard let current = files else { throw StorageError("journal is closed") }
            let drops = ended.filter { current.index.sessions[$0] != nil }.map { LogRecord.drop(sessionId: $0) }
            if !drops.isEmpty { try write(drops, to: &files) }
            return drops.count
        }
        // Every drop (these, and those of sessions that ended through ``closed(sessionId:)``)
        // is on the disk before the markers that would repeat it go.
        try syncAll()
        try EndedSessionMarkers.prune(upTo: newest, in: store)
        return dropped
    }

    /// Every open session with its rows, bytes as stored (after writing what is queued): what
    /// ``SQLiteJournal/importSessions(_:)`` takes when the hub switches journals.
    public func exportSessions() throws -> [ExportedJournalSession] {
        let headers = try files.withLock { files throws -> [String: (Int64, [UInt8])] in
            commitPending(&files)
            guard let files else { throw StorageError("journal is closed") }
            return files.index.sessions.compactMapValues { $0.header.map { ($0.startedAt, $0.body) } }
        }
        let rows = try readRows(Set(headers.keys))
        return headers.map { sessionId, header in
            let bySeq = rows[sessionId] ?? [:]
            return ExportedJournalSession(sessionId: sessionId, startedAt: header.0, header: header.1,
                                          rows: bySeq.keys.sorted().compactMap { bySeq[$0] })
        }.sorted { ($0.startedAt, $0.sessionId) < ($1.startedAt, $1.sessionId) }
    }

    /// Writes `sessions` (exported from another journal) in one write, after what is queued, and
    /// syncs it (the caller deletes the other journal next). A session already here gets its
    /// rows again: reads take a repeated `seq` once.
    public func importSessions(_ sessions: [ExportedJournalSession]) throws {
        var records: [LogRecord] = []
        for session in sessions {
            records.append(.header(sessionId: session.sessionId, startedAt: session.startedAt, body: session.header))
            for row in session.rows {
                records.append(.entry(sessionId: session.sessionId, seq: row.seq, timestamp: row.timestamp,
                                      kind: row.kind, body: row.body))
            }
        }
        guard !records.isEmpty else { return }
        try files.withLock { files in
            commitPending(&files)
            try write(records, to: &files)
        }
        try syncAll()
    }

    /// Files on disk and what they hold, for metrics and tests: segments (the current one
    /// included), their bytes, and open sessions.
    public var usage: (segments: Int, bytes: Int, openSessions: Int) {
        files.withLock { files in
            guard let files else { return (0, 0, 0) }
            return (files.older.count + 1, files.all.reduce(0) { $0 + $1.size }, files.index.sessions.count)
        }
    }

    // MARK: Lifecycle

    /// Writes what is queued, then refuses further appends (they throw), syncs the files (a
    /// failure goes to `onFailure`), closes them and releases the directory's lock. Idempotent.
    public func close() {
        queue.close()
        let state = files.withLock { files -> Files? in
            commitPending(&files)
            defer { files = nil }
            return files
        }
        syncQueue.sync {
            guard let state, state.broken == nil else { return }
            try? flush(state.all, directoryThrough: state.directoryToSync)
        }
        lock.release()
    }

    /// Why the journal refuses writes (a write that could not be undone, a failed sync), or nil:
    /// for health checks and tests.
    public var failure: String? { files.withLock { $0?.broken } }

    /// `fdatasync`s of segments done so far, for metrics and tests.
    public var syncCount: Int { syncs.load(ordering: .relaxed) }

    /// `fsync`s of the directory done so far because segments were made, for tests.
    var directorySyncCount: Int { directorySyncs.load(ordering: .relaxed) }

    /// Times the next segment could not be made (writing went on in the full one), for metrics.
    public var failedRotations: Int { rotationFailures.load(ordering: .relaxed) }

    /// Fault-injection hook for tests: the next `failNextSyncs` syncs fail as `fdatasync` would.
    var failNextSyncs: Int {
        get { injectedSyncFailures.load(ordering: .relaxed) }
        set { injectedSyncFailures.store(newValue, ordering: .relaxed) }
    }

    /// Test hook: runs in ``compact(limit:)`` after its sync, before it deletes anything.
    var compactionDidSync: (@Sendable () -> Void)? {
        get { afterCompactionSync.withLock { $0 } }
        set { afterCompactionSync.withLock { $0 = newValue } }
    }

    /// Fault-injection hook for tests: the next `failNextCommits` commits fail and their appends
    /// throw. 0 (the default) in production.
    public var failNextCommits: Int {
        get { queue.failNextCommits }
        set { queue.failNextCommits = newValue }
    }

    /// Appends queued and not yet written, for metrics and tests.
    public var pendingCount: Int { queue.pendingCount }

    /// Writes done so far (one per batch), for metrics and tests.
    public var commitCount: Int { queue.commitCount }
}
