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
/// crash or power loss can take back the last writes, never a record in the middle (a torn or
/// missing record ends what is read back, and everything after it is dropped, so a rebuild sees a
/// prefix of the log). Segments are `fdatasync`ed when they are rotated out (in the background).
///
/// A segment holds about ``segmentBytes``; then the next one starts. A segment is deleted once no
/// open session has rows in it. The rows of sessions open for long are copied forward out of old
/// segments by ``compact()`` (the hub's upkeep), so the files on disk stay about
/// ``keptSegments`` plus what open sessions hold.
///
/// Every record is a session's header (``opened(_:)``), an entry (its broadcast's wire text when
/// it carries it, as ``JournalBody``), or the drop of an ended session (``closed(sessionId:)``).
/// At start the journal reads every segment to learn which sessions are open and where their rows
/// are; ``entries(sessionIds:)`` reads those segments again.
public final class LogJournal: RecoverableJournal {
    private struct Pending: Sendable {
        var record: LogRecord
        /// Resumed once the record's write ends; only the last record of a group appended
        /// together carries one (a group is always in one write).
        var continuation: CheckedContinuation<Void, any Error>?
    }

    private struct State: Sendable {
        var pending: [Pending] = []
        /// A commit is scheduled on the runner.
        var scheduled = false
        var closed = false
        /// Uptime (ns) when the last commit took its batch.
        var lastCommit: UInt64 = 0
        var failNextCommits = 0
        var commits = 0
    }

    /// The files, under the journal's lock (commits, reads, compaction).
    private struct Files: Sendable {
        var current: LogSegment
        /// Earlier segments still on disk, by id.
        var older: [Int: LogSegment]
        var index: LogJournalIndex
        /// Set when a write failed and could not be undone: every later write fails with it.
        var broken: String?
    }

    /// The directory of the segment files.
    public let directory: String
    /// About how many bytes a segment holds before the next one starts.
    public let segmentBytes: Int
    /// The least time between two commits.
    public let commitInterval: Duration
    private let intervalNanoseconds: UInt64
    private let decoder: (any SessionEventDecoder)?
    private let runner: any SQLiteCommitRunner
    private let files: Mutex<Files?>
    private let state = Mutex(State())
    private let syncQueue = DispatchQueue(label: "sessionhub.journal.sync", qos: .utility)

    /// 16 MiB: at 9,000 deliveries/s a segment lasts about five seconds.
    public static let defaultSegmentBytes = 16 << 20
    /// Segments left as they are behind the current one: their sessions mostly end before
    /// ``compact()`` would copy their rows forward.
    public static let keptSegments = 4

    /// Where the journal of the store at `storePath` lives: a directory beside it,
    /// `-journal.log` in place of a `.sqlite` ending (`data/sessionhub.sqlite` →
    /// `data/sessionhub-journal.log/`), else appended.
    public static func directory(besideStore storePath: String) -> String {
        let stem = storePath.hasSuffix(".sqlite") ? String(storePath.dropLast(".sqlite".count)) : storePath
        return stem + "-journal.log"
    }

    /// Opens (creating it if needed) the journal in `directory` and reads its segments back. A
    /// record that is torn or missing ends the log there: that segment is cut back to it and
    /// later ones are deleted.
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
        let (seconds, attoseconds) = commitInterval.components
        self.intervalNanoseconds = UInt64(max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000)
        self.decoder = decoder
        self.runner = runner
        self.files = Mutex(try Self.recover(directory: directory, segmentBytes: max(4096, segmentBytes)))
    }

    /// Reads every segment back in order; see ``init(directory:commitInterval:decoder:runner:segmentBytes:)``.
    private static func recover(directory: String, segmentBytes: Int) throws -> Files {
        var index = LogJournalIndex()
        var segments: [LogSegment] = []
        var cut = false
        for id in try LogSegment.ids(in: directory) {
            var segment = try LogSegment(directory: directory, id: id)
            if cut {
                segment.delete()
                continue
            }
            let bytes = try segment.read()
            var offset = 0
            bytes.withUnsafeBufferPointer { buffer in
                while let (record, next) = LogRecord.decode(buffer, at: offset) {
                    index.replay(record, in: id)
                    offset = next
                }
            }
            if offset < bytes.count {
                try segment.truncate(to: offset)
                cut = true
            }
            segments.append(segment)
        }
        index.finishReplay()
        let current: LogSegment
        if let last = segments.last, last.size < segmentBytes {
            current = segments.removeLast()
        } else {
            current = try LogSegment(directory: directory, id: (segments.last?.id ?? 0) + 1)
        }
        var older: [Int: LogSegment] = [:]
        for segment in segments {
            if index.isLive(segment.id) { older[segment.id] = segment } else { segment.delete() }
        }
        return Files(current: current, older: older, index: index, broken: nil)
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

    /// Drops the session's rows in the next group commit (a drop record; its segments go once
    /// no other open session needs them); returns once it is written.
    public func closed(sessionId: String) async {
        try? await enqueue([.drop(sessionId: sessionId)])
    }

    private static func record(_ entry: JournalEntry) throws -> LogRecord {
        let (kind, body) = try JournalBody.encode(entry)
        return .entry(sessionId: entry.sessionId, seq: entry.seq, timestamp: entry.timestamp, kind: kind, body: body)
    }

    /// Queues records together (they share one write) and returns once it is done.
    private func enqueue(_ records: [LogRecord]) async throws {
        guard !records.isEmpty else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            var group = records.map { Pending(record: $0, continuation: nil) }
            group[group.count - 1].continuation = continuation
            let schedule = state.withLock { state -> UInt64?? in
                if state.closed { return .some(nil) }
                state.pending.append(contentsOf: group)
                if state.scheduled { return nil }
                state.scheduled = true
                return .some(state.lastCommit + intervalNanoseconds)
            }
            switch schedule {
            case .none:
                break
            case .some(.none):
                continuation.resume(throwing: StorageError("journal is closed"))
            case .some(.some(let at)):
                runner.run(atUptimeNanoseconds: at) { self.files.withLock { self.commitPending(&$0) } }
            }
        }
    }

    /// Takes everything queued and writes it at the end of the current segment in one write;
    /// runs holding the files' lock.
    private func commitPending(_ files: inout Files?) {
        let (batch, inject) = state.withLock { state -> ([Pending], Bool) in
            let batch = state.pending
            state.pending.removeAll()
            state.scheduled = false
            guard !batch.isEmpty else { return ([], false) }
            state.lastCommit = DispatchTime.now().uptimeNanoseconds
            let inject = state.failNextCommits > 0
            if inject { state.failNextCommits -= 1 }
            return (batch, inject)
        }
        guard !batch.isEmpty else { return }
        do {
            try write(batch.map(\.record), to: &files, inject: inject)
            state.withLock { $0.commits += 1 }
            for pending in batch { pending.continuation?.resume() }
        } catch {
            let failure = error as? StorageError ?? StorageError("journal write: \(error)")
            for pending in batch { pending.continuation?.resume(throwing: failure) }
        }
    }

    /// Writes `records` in one write at the end of the current segment and takes them into the
    /// index (deleting segments no open session needs any more), then starts a new segment when
    /// this one is full.
    private func write(_ records: [LogRecord], to files: inout Files?, inject: Bool = false) throws {
        guard var current = files else { throw StorageError("journal is closed") }
        if let broken = current.broken { throw StorageError(broken) }
        if inject { throw StorageError("injected journal commit failure (failNextCommits)") }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(records.reduce(0) { $0 + Self.estimatedSize($1) })
        for record in records { record.encode(into: &bytes) }
        do {
            try current.current.append(bytes)
        } catch let failure as LogSegment.WriteFailure {
            if !failure.undone { current.broken = failure.message }
            files = current
            throw StorageError(failure.message)
        }
        for record in records {
            for id in current.index.apply(record, in: current.current.id) where id != current.current.id {
                current.older.removeValue(forKey: id)?.delete()
            }
        }
        if current.current.size >= segmentBytes {
            let full = current.current
            do {
                current.current = try LogSegment(directory: directory, id: full.id + 1)
                if current.index.isLive(full.id) {
                    current.older[full.id] = full
                    // Rotated out: its data goes to the disk in the background, so that an OS
                    // crash cannot lose it once later segments are being written.
                    syncQueue.async { try? full.sync() }
                } else {
                    full.delete()
                }
            } catch {
                // Keep writing to the full segment; the next commit tries again.
            }
        }
        files = current
    }

    private static func estimatedSize(_ record: LogRecord) -> Int {
        switch record {
        case .header(_, _, let body), .entry(_, _, _, _, let body): 80 + body.count
        case .drop: 48
        }
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
                guard let segment = id == files.current.id ? files.current : files.older[id] else { continue }
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

    /// Copies the rows of sessions still open out of old segments (all but the current one and
    /// the ``keptSegments`` before it) to the end of the log, at most `limit` segments per call,
    /// and deletes those segments; returns how many it deleted. Run it now and then (the hub's
    /// upkeep). Each segment is read outside the lock and copied in one write, after the writes
    /// queued before it.
    @discardableResult
    public func compact(limit: Int = 4) throws -> Int {
        var deleted = 0
        for _ in 0..<max(0, limit) {
            // The oldest segment past the kept ones, and the open sessions with rows there.
            let target = try files.withLock { files throws -> (LogSegment, Set<String>)? in
                guard let files else { throw StorageError("journal is closed") }
                let ids = files.older.keys.sorted()
                guard ids.count > Self.keptSegments, let oldest = ids.first, let segment = files.older[oldest] else { return nil }
                return (segment, files.index.live[oldest] ?? [])
            }
            guard let (segment, sessions) = target else { break }
            let bytes = try segment.read()
            var copies: [LogRecord] = []
            bytes.withUnsafeBufferPointer { buffer in
                var offset = 0
                while let (record, next) = LogRecord.decode(buffer, at: offset) {
                    offset = next
                    if case .drop = record { continue }
                    if sessions.contains(record.sessionId) { copies.append(record) }
                }
            }
            try files.withLock { files throws in
                commitPending(&files)
                guard let before = files else { throw StorageError("journal is closed") }
                // Only sessions still open are copied: one that ended meanwhile has no header.
                let open = copies.filter { before.index.sessions[$0.sessionId] != nil }
                if !open.isEmpty { try write(open, to: &files) }
                guard var after = files else { return }
                // A segment whose sessions all ended meanwhile went with their drops.
                if after.index.moved(sessions, from: segment.id), let gone = after.older.removeValue(forKey: segment.id) {
                    gone.delete()
                    deleted += 1
                }
                files = after
            }
        }
        return deleted
    }

    /// Drops the sessions the store at `store` marked ended (``EndedSessionMarkers``), then the
    /// markers; returns how many sessions it dropped. Run it before ``openSessions()`` at start
    /// (a crash between a history write and ``closed(sessionId:)`` must not rebuild an ended
    /// session) and now and then.
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

    /// Writes `sessions` (exported from another journal) in one write, after what is queued. A
    /// session already here gets its rows again: reads take a repeated `seq` once.
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
    }

    /// Files on disk and what they hold, for metrics and tests: segments (the current one
    /// included), their bytes, and open sessions.
    public var usage: (segments: Int, bytes: Int, openSessions: Int) {
        files.withLock { files in
            guard let files else { return (0, 0, 0) }
            return (files.older.count + 1, files.older.values.reduce(files.current.size) { $0 + $1.size },
                    files.index.sessions.count)
        }
    }

    // MARK: Lifecycle

    /// Writes what is queued, then refuses further appends (they throw) and closes the files.
    /// Idempotent.
    public func close() {
        state.withLock { $0.closed = true }
        files.withLock { files in
            commitPending(&files)
            if let current = files {
                current.current.close()
                for segment in current.older.values { segment.close() }
            }
            files = nil
        }
        syncQueue.sync {}
    }

    /// Fault-injection hook for tests: the next `failNextCommits` commits fail and their appends
    /// throw. 0 (the default) in production.
    public var failNextCommits: Int {
        get { state.withLock { $0.failNextCommits } }
        set { state.withLock { $0.failNextCommits = max(0, newValue) } }
    }

    /// Appends queued and not yet written, for metrics and tests.
    public var pendingCount: Int { state.withLock { $0.pending.count } }

    /// Writes done so far (one per batch), for metrics and tests.
    public var commitCount: Int { state.withLock { $0.commits } }
}
