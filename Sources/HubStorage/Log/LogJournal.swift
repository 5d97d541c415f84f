import Dispatch
import Foundation
import HubDomain
import Synchronization

/// The durable ``HubDomain/SessionJournal`` as an append-only log of segment files, with group
/// commit: no B-tree, no write-ahead log of its own and no checkpoint.
///
/// ``append(_:)`` queues the entry and suspends until it is written; a committer (where its
/// ``SQLiteCommitRunner`` says) writes everything queued, across all sessions, as one `pwrite`
/// at the end of the current segment (``LogRecord`` framing, a CRC-32 per record). The
/// durability is that of the SQLite journal in WAL mode with `synchronous=NORMAL`: a written
/// entry survives a crash or `kill -9` of the process (it is in the kernel's page cache); an OS
/// crash or power loss can take back the last writes. What is read back is always a prefix of
/// what was written: a record cut short or damaged ends its segment there, and a segment whose
/// start record does not match where the one before it ended (that one lost its tail) is not
/// read, nor any after it.
///
/// A segment holds about ``segmentBytes``; then the next one starts, and the full one is
/// `fdatasync`ed in the background. Segments are deleted from the log's start only, each once no
/// open session has rows in it (a later segment may hold the drop of a session an earlier one
/// opened). The rows of sessions open for long are copied forward out of the oldest segments by
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
        /// Set when a write failed and could not be undone: every later write fails with it.
        var broken: String?

        /// Every segment on disk, oldest first.
        var all: [LogSegment] { older.keys.sorted().compactMap { older[$0] } + [current] }

        /// Deletes segments from the log's start while no open session has rows in them (never
        /// the current one).
        mutating func dropUnneededStart() {
            while let oldest = older.keys.min(), !index.isLive(oldest) {
                older.removeValue(forKey: oldest)?.delete()
            }
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
    private let syncQueue = DispatchQueue(label: "sessionhub.journal.sync", qos: .utility)

    /// 16 MiB: at 9,000 deliveries/s a segment lasts about five seconds.
    public static let defaultSegmentBytes = 16 << 20
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

    /// Opens (creating it if needed) the journal in `directory` and reads its segments back,
    /// keeping the longest prefix of whole records (the rest is cut off or deleted).
    /// - Parameters:
    ///   - decoder: reads back entries stored as wire text; without one, such rows cannot be read.
    ///   - runner: where the commits run (default: a dispatch queue of the journal's own).
    public init(directory: String, commitInterval: Duration = .zero, decoder: (any SessionEventDecoder)? = nil,
                runner: any SQLiteCommitRunner = DispatchCommitRunner(label: "sessionhub.journal.log"),
                segmentBytes: Int = LogJournal.defaultSegmentBytes) throws {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw StorageError("create directory \(directory): \(error.localizedDescription)")
        }
        self.directory = directory
        self.segmentBytes = max(4096, segmentBytes)
        self.commitInterval = commitInterval
        self.decoder = decoder
        self.queue = GroupCommitQueue(interval: commitInterval, runner: runner)
        self.files = Mutex(try Self.recover(directory: directory, segmentBytes: max(4096, segmentBytes)))
    }

    /// Reads every segment back in order; see ``init(directory:commitInterval:decoder:runner:segmentBytes:)``.
    private static func recover(directory: String, segmentBytes: Int) throws -> Files {
        var index = LogJournalIndex()
        var kept: [LogSegment] = []
        var cut = false
        let ids = try LogSegment.ids(in: directory)
        for id in ids {
            let segment = try LogSegment(directory: directory, id: id)
            if cut {
                segment.delete()
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
                segment.delete()
                cut = true
                continue
            }
            for record in records { index.replay(record, in: id) }
            if offset < bytes.count {
                try segment.truncate(to: offset)
                cut = true
            }
            kept.append(segment)
        }
        index.finishReplay()
        if cut {
            // What was cut off or deleted stays so through an OS crash before the next writes.
            try kept.last?.sync()
            try LogSegment.syncDirectory(directory)
        }
        let current: LogSegment
        if let last = kept.last, last.size < segmentBytes, !cut {
            current = kept.removeLast()
        } else {
            // A number never used before in this directory, whatever was deleted.
            current = try newSegment(directory: directory, id: (ids.last ?? 0) + 1, after: kept.last)
        }
        var files = Files(current: current, older: Dictionary(uniqueKeysWithValues: kept.map { ($0.id, $0) }),
                          index: index, broken: nil)
        files.dropUnneededStart()
        return files
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
        if state.current.size >= segmentBytes,
           let next = try? Self.newSegment(directory: directory, id: state.current.id + 1, after: state.current) {
            // (When the next segment cannot be made, writing goes on in the full one.)
            let full = state.current
            state.older[full.id] = full
            state.current = next
            // Rotated out: to the disk in the background (recovery needs no more: a segment that
            // lost its tail ends the log there).
            syncQueue.async { try? full.sync() }
        }
        // Segments no open session needs go in the upkeep (``compact(limit:)``), after a sync:
        // the drops that freed them must be on the disk before they go.
    }

    private static func estimatedSize(_ record: LogRecord) -> Int {
        switch record {
        case .header(_, _, let body), .entry(_, _, _, _, let body): 80 + body.count
        case .drop, .start: 48
        }
    }

    /// Syncs every segment to the disk, outside the lock (the files stay open while held).
    private func syncAll() throws {
        let segments = try files.withLock { files throws -> [LogSegment] in
            guard let files else { throw StorageError("journal is closed") }
            return files.all
        }
        for segment in segments { try segment.sync() }
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
                let bytes = try segment.read()
                bytes.withUnsafeBufferPointer { buffer in
                    var offset = 0
                    while let (record, next) = LogRecord.decode(buffer, at: offset) {
                        offset = next
                        guard case .entry(let sessionId, let seq, let timestamp, let kind, let body) = record,
                              rows[sessionId] != nil else { continue }
                        rows[sessionId]?[seq] = .init(seq: seq, timestamp: timestamp, kind: kind, body: body)
                    }
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
    /// freed); returns how many it deleted. Run it now and then (the hub's upkeep): segments are
    /// deleted nowhere else, so that nothing goes before the writes that make it unneeded are on
    /// the disk. Each segment is read outside the lock and copied in one write, after the writes
    /// queued before it.
    @discardableResult
    public func compact(limit: Int = 64) throws -> Int {
        // The oldest segments past the kept ones that open sessions still need.
        let targets = try files.withLock { files throws -> [(LogSegment, Set<String>)] in
            guard let files else { throw StorageError("journal is closed") }
            return files.older.keys.sorted().dropLast(Self.keptSegments).compactMap { id -> (LogSegment, Set<String>)? in
                guard let segment = files.older[id], let sessions = files.index.live[id], !sessions.isEmpty else { return nil }
                return (segment, sessions)
            }.prefix(max(0, limit)).map { $0 }
        }
        for (segment, sessions) in targets {
            var copies: [LogRecord] = []
            let bytes = try segment.read()
            bytes.withUnsafeBufferPointer { buffer in
                var offset = 0
                while let (record, next) = LogRecord.decode(buffer, at: offset) {
                    offset = next
                    switch record {
                    case .header, .entry: if sessions.contains(record.sessionId) { copies.append(record) }
                    case .drop, .start: break
                    }
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
        // The copies, and the drops written so far, reach the disk before anything goes.
        try syncAll()
        let deleted = files.withLock { files -> Int in
            for (segment, sessions) in targets { files?.index.moved(sessions, from: segment.id) }
            let before = files?.older.count ?? 0
            files?.dropUnneededStart()
            return before - (files?.older.count ?? 0)
        }
        if deleted > 0 { try LogSegment.syncDirectory(directory) }
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

    /// Writes what is queued, then refuses further appends (they throw) and closes the files
    /// (once their background syncs are done). Idempotent.
    public func close() {
        queue.close()
        files.withLock { files in
            commitPending(&files)
            files = nil
        }
        syncQueue.sync {}
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
