#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// One file of a ``LogJournal``: records appended at its end with `pwrite`, read back whole.
///
/// Appends come from one thread at a time (the journal's lock); reads may run beside them. The
/// file descriptor lives as long as the object, so a reader holding a segment never reads
/// through a descriptor that was closed and reused; ``delete()`` only unlinks the file.
final class LogSegment: Sendable {
    /// The segment's number; files are named after it (``fileName(_:)``) and read in its order.
    let id: Int
    let path: String
    private let descriptor: Int32
    private let length: Atomic<Int>

    /// Bytes written (and whole, after a cut).
    var size: Int { length.load(ordering: .acquiring) }

    /// Opens segment `id` in `directory`; with `create`, makes it, failing when a file of that
    /// name is already there.
    init(directory: String, id: Int, create: Bool = false) throws {
        self.id = id
        self.path = directory + "/" + Self.fileName(id)
        let descriptor = open(path, create ? O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC : O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StorageError("journal segment \(path): \(Self.errorText())") }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let text = Self.errorText()
            close(descriptor)
            throw StorageError("journal segment \(path): \(text)")
        }
        self.descriptor = descriptor
        self.length = Atomic(Int(status.st_size))
    }

    deinit {
        close(descriptor)
    }

    /// `journal-00000042.log` for 42.
    static func fileName(_ id: Int) -> String {
        let digits = String(id)
        return "journal-" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits + ".log"
    }

    /// The segment numbers of the files in `directory`, ascending: a file counts only when its
    /// name is exactly ``fileName(_:)`` of its number (a stray `journal-1.log` beside
    /// `journal-00000001.log` is not segment 1 a second time).
    static func ids(in directory: String) throws -> [Int] {
        guard let handle = opendir(directory) else { throw StorageError("journal directory \(directory): \(errorText())") }
        defer { closedir(handle) }
        var ids: [Int] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            guard name.hasPrefix("journal-"), name.hasSuffix(".log") else { continue }
            if let id = Int(name.dropFirst("journal-".count).dropLast(".log".count)), id > 0, fileName(id) == name {
                ids.append(id)
            }
        }
        return ids.sorted()
    }

    /// A failed ``append(_:)``: `undone` tells whether the file is back to its size before it.
    struct WriteFailure: Error {
        var message: String
        var undone: Bool
    }

    /// Writes `bytes` at the end. When the write fails or is short, the file is cut back to
    /// its size before it (so that no partial record stays between whole ones) and this throws
    /// ``WriteFailure``.
    func append(_ bytes: [UInt8]) throws {
        let start = size
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { raw in
                pwrite(descriptor, raw.baseAddress.map { $0 + written }, raw.count - written, off_t(start + written))
            }
            if result < 0, errno == EINTR { continue }
            guard result > 0 else {
                let text = result == 0 ? "nothing written" : Self.errorText()
                if ftruncate(descriptor, off_t(start)) != 0 {
                    throw WriteFailure(message: "journal segment \(path): write failed (\(text)) and could not be undone (\(Self.errorText()))",
                                       undone: false)
                }
                throw WriteFailure(message: "journal segment \(path): write failed: \(text)", undone: true)
            }
            written += result
        }
        length.store(start + bytes.count, ordering: .releasing)
    }

    /// The file's bytes up to ``size``.
    func read() throws -> [UInt8] {
        let count = size
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let result = bytes.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress.map { $0 + done }, count - done, off_t(done))
            }
            if result < 0, errno == EINTR { continue }
            guard result > 0 else {
                throw StorageError("journal segment \(path): read failed: \(result == 0 ? "file shorter than written" : Self.errorText())")
            }
            done += result
        }
        return bytes
    }

    /// Reads the file and calls `body` with each of its records, in order.
    /// - Throws: ``StorageError`` when the read fails, or when the file does not decode to its
    ///   end: recovery accepted it whole, so a record that no longer reads back (a media error, a
    ///   file changed from outside) must fail the compaction or read instead of leaving a hole.
    func forEachRecord(_ body: (LogRecord) -> Void) throws {
        let bytes = try read()
        let end = bytes.withUnsafeBufferPointer { buffer -> Int in
            var offset = 0
            while let (record, next) = LogRecord.decode(buffer, at: offset) {
                body(record)
                offset = next
            }
            return offset
        }
        guard end == bytes.count else {
            throw StorageError("journal segment \(path): damaged at byte \(end) of \(bytes.count) (it read back whole at start)")
        }
    }

    /// Cuts the file to `length` bytes (a torn tail found when reading it back).
    func truncate(to newLength: Int) throws {
        guard ftruncate(descriptor, off_t(newLength)) == 0 else {
            throw StorageError("journal segment \(path): truncate failed: \(Self.errorText())")
        }
        length.store(newLength, ordering: .releasing)
    }

    /// Flushes the file's data to the disk (`fdatasync`).
    func sync() throws {
        guard fdatasync(descriptor) == 0 else { throw StorageError("journal segment \(path): sync failed: \(Self.errorText())") }
    }

    /// Deletes the file; the descriptor closes once nobody holds the segment.
    func delete() {
        unlink(path)
    }

    /// Makes the directory's entries (files made, deleted or renamed in it) durable (`fsync` of
    /// the directory).
    static func syncDirectory(_ directory: String) throws {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw StorageError("journal directory \(directory): \(errorText())") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw StorageError("journal directory \(directory): sync failed: \(errorText())") }
    }

    private static func errorText() -> String {
        String(cString: strerror(errno))
    }
}
