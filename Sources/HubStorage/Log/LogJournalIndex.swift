/// What a ``LogJournal`` knows of its segments without reading them: the open sessions (their
/// headers and the segments holding their rows) and, per segment, the open sessions with rows
/// there. Built by replaying every record at start (``replay(_:in:)``, then
/// ``finishReplay()``), then kept current by each commit (``apply(_:in:)``).
///
/// A segment is deleted only from the log's start (the oldest one on disk), once no open session
/// has rows in it (``isLive(_:)``): a later segment may hold the drop that ends a session whose
/// header an earlier one holds, and must outlive it.
struct LogJournalIndex {
    struct Session {
        /// The header's `startedAt` and body (``SessionHeader`` JSON); nil while a replay has
        /// met entries of the session and not (yet) its header.
        var header: (startedAt: Int64, body: [UInt8])?
        /// Segments with rows (its header or entries) of the session.
        var segments: Set<Int>
    }

    private(set) var sessions: [String: Session] = [:]
    /// Per segment, the open sessions with rows in it.
    private(set) var live: [Int: Set<String>] = [:]
    /// Sessions a replay has seen dropped: their later rows (written after the drop) are not
    /// theirs to keep. Empty outside a replay.
    private var dropped: Set<String> = []

    /// Takes in a record just written to `segment`. An entry of a session that has no header here
    /// (it was dropped while the entry was queued) is not kept.
    mutating func apply(_ record: LogRecord, in segment: Int) {
        switch record {
        case .header(let sessionId, let startedAt, let body):
            sessions[sessionId, default: Session(header: nil, segments: [])].header = (startedAt, body)
            add(sessionId, segment)
        case .entry(let sessionId, _, _, _, _):
            guard sessions[sessionId] != nil else { return }
            add(sessionId, segment)
        case .drop(let sessionId):
            remove(sessionId)
        case .start:
            break
        }
    }

    /// Takes in a record read back from `segment` at start, segments in order. Entries may come
    /// before their session's header here (a compaction copied the header to a later segment),
    /// so they are kept until ``finishReplay()``, unless the session was dropped before them. A
    /// header after a drop opens the session again (a move from another journal repeated after
    /// it ended), as ``apply(_:in:)`` did when it was written: the entries after it are its own.
    mutating func replay(_ record: LogRecord, in segment: Int) {
        switch record {
        case .entry(let sessionId, _, _, _, _):
            guard !dropped.contains(sessionId) else { return }
            if sessions[sessionId] == nil { sessions[sessionId] = Session(header: nil, segments: []) }
            add(sessionId, segment)
        case .drop(let sessionId):
            dropped.insert(sessionId)
            remove(sessionId)
        case .header(let sessionId, _, _):
            dropped.remove(sessionId)
            apply(record, in: segment)
        case .start:
            break
        }
    }

    /// Ends a replay: sessions with rows but no header (an ended session whose header and drop
    /// went with deleted segments) are not open.
    mutating func finishReplay() {
        for (sessionId, session) in sessions where session.header == nil { remove(sessionId) }
        dropped = []
    }

    /// `moved` sessions' rows were copied out of `segment` into a later one (already applied):
    /// the segment no longer holds them.
    mutating func moved(_ moved: Set<String>, from segment: Int) {
        for sessionId in moved {
            sessions[sessionId]?.segments.remove(segment)
            live[segment]?.remove(sessionId)
        }
        if live[segment]?.isEmpty == true { live[segment] = nil }
    }

    /// Whether an open session has rows in `segment`.
    func isLive(_ segment: Int) -> Bool {
        !(live[segment]?.isEmpty ?? true)
    }

    private mutating func add(_ sessionId: String, _ segment: Int) {
        if sessions[sessionId]?.segments.insert(segment).inserted == true {
            live[segment, default: []].insert(sessionId)
        }
    }

    private mutating func remove(_ sessionId: String) {
        guard let session = sessions.removeValue(forKey: sessionId) else { return }
        for id in session.segments {
            live[id]?.remove(sessionId)
            if live[id]?.isEmpty == true { live[id] = nil }
        }
    }
}
