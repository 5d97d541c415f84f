import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`, for integration tests.
///
/// Foundation's `Process` is not used: on Linux its launcher walks `/proc/self/fd` to close the
/// parent's descriptors in the child, and with tests opening sockets in parallel in the same
/// process that walk overran its buffer and crashed the whole test run (seen in CI: about 1,360
/// descriptors open, `memcpy` inside `Process.run()`); its `FileHandle.availableData` also traps
/// on `EINTR`. Here the child's descriptors are closed by the spawn itself
/// (`posix_spawn_file_actions_addclosefrom_np`), the pipes are close-on-exec, and every `read`
/// and `waitpid` retries on `EINTR`.
///
/// Standard output and standard error are read to their end on threads of their own (the
/// cooperative pool has only as many threads as cores, and several tests run children at once).
final class ChildProcess: Sendable {
    /// How the child ended.
    struct Termination: Sendable, Equatable {
        /// The exit status, or the number of the signal that ended it.
        var status: Int32
        /// Whether a signal ended it (`status` is then the signal's number).
        var signaled: Bool
    }

    /// What to do with one of the child's standard streams.
    enum Stream: Sendable {
        /// `/dev/null`.
        case discard
        /// A pipe read by this process into ``ChildProcess/standardOutput`` or
        /// ``ChildProcess/standardError``.
        case capture
    }

    /// Why a child could not be started.
    struct SpawnFailure: Error, CustomStringConvertible {
        var executable: String
        var call: String
        var code: Int32
        var description: String { "cannot start \(executable): \(call) failed: \(String(cString: strerror(code)))" }
    }

    private struct State {
        var termination: Termination?
        var exitWaiters: [CheckedContinuation<Termination, Never>] = []
        var output = Data()
        var errors = Data()
        var openPipes = 0
        var drainWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The child's process id.
    let pid: pid_t
    private let state: Mutex<State>

    private init(pid: pid_t, openPipes: Int) {
        self.pid = pid
        self.state = Mutex(State(openPipes: openPipes))
    }

    /// Starts `executable` (a path) with `arguments` and exactly `environment`, in `directory`
    /// (this process's when nil), standard input from `/dev/null`.
    static func spawn(_ executable: String, arguments: [String], environment: [String: String],
                      directory: String? = nil, output: Stream = .capture, errors: Stream = .capture) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        try check(posix_spawn_file_actions_init(&actions), "posix_spawn_file_actions_init", executable)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        try check(posix_spawnattr_init(&attributes), "posix_spawnattr_init", executable)
        defer { posix_spawnattr_destroy(&attributes) }

        // Signals: none blocked, every one at its default (the test process ignores SIGPIPE, and
        // an ignored signal stays ignored across exec).
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var pipes: [(read: Int32, write: Int32, target: Int32)] = []
        var spawned = false
        defer {
            // The child has its copies of the write ends; the read ends stay for the readers,
            // unless the spawn did not happen.
            for end in pipes {
                close(end.write)
                if !spawned { close(end.read) }
            }
        }
        try check(posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0), "addopen", executable)
        for (stream, target) in [(output, Int32(1)), (errors, Int32(2))] {
            switch stream {
            case .discard:
                try check(posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0), "addopen", executable)
            case .capture:
                var ends: [Int32] = [-1, -1]
                guard pipe(&ends) == 0 else { throw SpawnFailure(executable: executable, call: "pipe", code: errno) }
                pipes.append((ends[0], ends[1], target))
                // Close-on-exec (pipe2 is not imported): another test's child, spawned before
                // this flag is set, is still covered by its spawn's closefrom.
                _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
                _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
                // dup2 clears close-on-exec on the child's copy only.
                try check(posix_spawn_file_actions_adddup2(&actions, ends[1], target), "adddup2", executable)
            }
        }
        if let directory {
            guard let addChdir = GlibcExtensions.addChdir else {
                throw SpawnFailure(executable: executable, call: "posix_spawn_file_actions_addchdir_np (missing)", code: ENOSYS)
            }
            try check(addChdir(&actions, directory), "posix_spawn_file_actions_addchdir_np", executable)
        }
        if let addClosefrom = GlibcExtensions.addClosefrom {
            try check(addClosefrom(&actions, 3), "posix_spawn_file_actions_addclosefrom_np", executable)
        }

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw SpawnFailure(executable: executable, call: "posix_spawn", code: result) }
        spawned = true
        let child = ChildProcess(pid: pid, openPipes: pipes.count)
        for end in pipes {
            let isOutput = end.target == 1
            Thread.detachNewThread { child.drain(end.read, intoOutput: isOutput) }
        }
        Thread.detachNewThread { child.reap() }
        return child
    }

    private static func check(_ result: Int32, _ call: String, _ executable: String) throws {
        guard result == 0 else { throw SpawnFailure(executable: executable, call: call, code: result) }
    }

    /// Reads `descriptor` to its end into standard output or standard error, then closes it.
    private func drain(_ descriptor: Int32, intoOutput: Bool) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            let chunk = buffer[0..<count]
            state.withLock { intoOutput ? $0.output.append(contentsOf: chunk) : $0.errors.append(contentsOf: chunk) }
        }
        close(descriptor)
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.openPipes -= 1
            guard state.openPipes == 0 else { return [] }
            defer { state.drainWaiters = [] }
            return state.drainWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits for the child to end and reaps it. The child is reaped under the lock that
    /// ``signal(_:)`` takes, so a signal never reaches a later process given the same id.
    private func reap() {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0, errno == EINTR {}
        let (termination, waiters) = state.withLock { state -> (Termination, [CheckedContinuation<Termination, Never>]) in
            var status: Int32 = 0
            var reaped: pid_t
            repeat { reaped = waitpid(pid, &status, 0) } while reaped < 0 && errno == EINTR
            let signal = status & 0x7f
            // Not reaped (someone else waited for it): no status to report, never a clean exit.
            let termination = reaped != pid ? Termination(status: Self.unknownStatus, signaled: false)
                : signal == 0 ? Termination(status: (status >> 8) & 0xff, signaled: false)
                : Termination(status: signal, signaled: true)
            state.termination = termination
            defer { state.exitWaiters = [] }
            return (termination, state.exitWaiters)
        }
        for waiter in waiters { waiter.resume(returning: termination) }
    }

    /// Sends the child signal `number` unless it has ended; true when it was sent.
    @discardableResult
    func signal(_ number: Int32) -> Bool {
        state.withLock { state in
            guard state.termination == nil else { return false }
            return kill(pid, number) == 0
        }
    }

    /// The status reported when the child could not be reaped (its exit status is unknown).
    static let unknownStatus: Int32 = -1

    /// How the child ended, or nil while it runs.
    var termination: Termination? { state.withLock { $0.termination } }

    /// Whether the child still runs.
    var isRunning: Bool { termination == nil }

    /// Waits until the child ends.
    func waitForExit() async -> Termination {
        await withCheckedContinuation { continuation in
            let ended: Termination? = state.withLock { state in
                if let termination = state.termination { return termination }
                state.exitWaiters.append(continuation)
                return nil
            }
            if let ended { continuation.resume(returning: ended) }
        }
    }

    /// Waits until both captured streams reached their end (a grandchild that still holds them
    /// open keeps this waiting: the binaries the tests run start none that outlive them).
    func waitForStreams() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let drained = state.withLock { state in
                if state.openPipes == 0 { return true }
                state.drainWaiters.append(continuation)
                return false
            }
            if drained { continuation.resume() }
        }
    }

    /// Whether both captured streams reached their end.
    var streamsDrained: Bool { state.withLock { $0.openPipes == 0 } }

    /// Standard output so far.
    var standardOutput: Data { state.withLock { $0.output } }

    /// Standard error so far.
    var standardError: Data { state.withLock { $0.errors } }
}

/// glibc's `posix_spawn_file_actions_add*_np`, which Swift's Glibc module does not import (they
/// are declared only under `_GNU_SOURCE`); looked up at run time, nil where the C library lacks
/// them.
private enum GlibcExtensions {
    typealias AddClosefrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    static let addClosefrom: AddClosefrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
    static let addChdir: AddChdir? = symbol("posix_spawn_file_actions_addchdir_np")

    private static func symbol<T>(_ name: String) -> T? {
        #if canImport(Glibc)
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(address, to: T.self)
        #else
        return nil
        #endif
    }
}
