#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a ``LogJournal``'s recovery puts what it does not read, instead of deleting it: the
/// directory `quarantine/` in the journal's directory, and the ``LogRecoveryReport`` of what went
/// there. Segments are moved in whole (a rename); a tail cut off a segment is copied to a file of
/// its own (`journal-00000007.log.tail-at-4096`) before the cut. A name already taken there
/// gets `.1`, `.2`, ….
struct LogQuarantine {
    /// The quarantine's name in the journal's directory.
    static let directoryName = "quarantine"

    let path: String
    private(set) var report = LogRecoveryReport()

    init(journalDirectory: String) {
        path = journalDirectory + "/" + Self.directoryName
    }

    /// Moves `segment`'s file into the quarantine (the descriptor the segment holds stays open).
    mutating func setAside(_ segment: LogSegment) throws {
        try makeDirectory()
        let name = freeName(LogSegment.fileName(segment.id))
        guard rename(segment.path, path + "/" + name) == 0 else {
            throw StorageError("journal segment \(segment.path): cannot move it to \(path): \(Self.errorText())")
        }
        report.segmentsSetAside.append(name)
        report.bytesSetAside += segment.size
    }

    /// Saves `bytes`, the tail about to be cut off `segment` at `offset`, to a file of the
    /// quarantine, synced (so that the cut never reaches the disk without the copy).
    mutating func keepTail(_ bytes: [UInt8], of segment: LogSegment, at offset: Int) throws {
        try makeDirectory()
        let file = path + "/" + freeName(LogSegment.fileName(segment.id) + ".tail-at-\(offset)")
        let descriptor = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StorageError("journal quarantine \(file): \(Self.errorText())") }
        defer { close(descriptor) }
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { raw in
                write(descriptor, raw.baseAddress.map { $0 + written }, raw.count - written)
            }
            if result < 0, errno == EINTR { continue }
            guard result > 0 else {
                throw StorageError("journal quarantine \(file): write failed: \(result == 0 ? "nothing written" : Self.errorText())")
            }
            written += result
        }
        guard fsync(descriptor) == 0 else { throw StorageError("journal quarantine \(file): sync failed: \(Self.errorText())") }
        report.bytesCut += bytes.count
    }

    /// Makes the quarantine's entries durable, when anything went there (the journal directory's
    /// own entries, the quarantine's among them, are the caller's to sync).
    func sync() throws {
        guard report.quarantine != nil else { return }
        try LogSegment.syncDirectory(path)
    }

    private mutating func makeDirectory() throws {
        guard report.quarantine == nil else { return }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw StorageError("journal quarantine \(path): cannot create it: \(Self.errorText())")
        }
        report.quarantine = path
    }

    /// `name`, or `name.1`, `name.2`, … when it is taken in the quarantine.
    private func freeName(_ name: String) -> String {
        var candidate = name
        var suffix = 0
        while access(path + "/" + candidate, F_OK) == 0 {
            suffix += 1
            candidate = name + ".\(suffix)"
        }
        return candidate
    }

    private static func errorText() -> String {
        String(cString: strerror(errno))
    }
}
