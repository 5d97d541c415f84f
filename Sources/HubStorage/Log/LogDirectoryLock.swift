#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The exclusive lock a ``LogJournal`` holds on its directory while it is open: `flock`
/// (`LOCK_EX | LOCK_NB`) on the file `LOCK` in it, so that a second journal on the same directory
/// (another process, or a second opener in this one) fails at once instead of writing segments
/// beside the first. The kernel drops the lock when the process dies (`kill -9` included).
///
/// The lock belongs to the open file, not the descriptor: a child process forked while the
/// lock file is open holds it too until it execs (the descriptor is close-on-exec), so a journal
/// reopened right after a close (a restart in the same process) can find it still held for a
/// moment. Taking the lock is retried for up to ``contendedWait`` before the directory is reported
/// in use.
final class LogDirectoryLock: Sendable {
    /// The lock file's name in the journal's directory.
    static let fileName = "LOCK"

    /// How long a held lock is retried (every 10 ms) before the directory is reported in use.
    static let contendedWait = Duration.seconds(1)

    /// The lock file's descriptor; -1 once released.
    private let descriptor: Mutex<Int32>

    /// Takes the lock on `directory`, creating its lock file when missing.
    /// - Throws: ``StorageError`` naming the directory when another opener holds the lock, or the
    ///   lock file cannot be opened.
    init(directory: String) throws {
        let path = directory + "/" + Self.fileName
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StorageError("journal directory \(directory): cannot open \(Self.fileName): \(Self.errorText())")
        }
        let deadline = ContinuousClock.now + Self.contendedWait
        var failure: Int32 = 0
        while true {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { failure = 0; break }
            failure = errno
            if failure == EINTR { continue }
            guard failure == EWOULDBLOCK, ContinuousClock.now < deadline else { break }
            usleep(10_000)
        }
        guard failure == 0 else {
            let held = failure == EWOULDBLOCK
            let text = String(cString: strerror(failure))
            close(descriptor)
            throw StorageError(held
                ? "journal directory \(directory) is in use: another journal holds its \(Self.fileName) (is another sessionhub running on this data directory?)"
                : "journal directory \(directory): cannot lock \(Self.fileName): \(text)")
        }
        self.descriptor = Mutex(descriptor)
    }

    deinit {
        release()
    }

    /// Releases the lock (closes the lock file). Idempotent.
    func release() {
        descriptor.withLock { descriptor in
            guard descriptor >= 0 else { return }
            close(descriptor)
            descriptor = -1
        }
    }

    private static func errorText() -> String {
        String(cString: strerror(errno))
    }
}
