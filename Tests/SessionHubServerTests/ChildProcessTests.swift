import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The test support's process launcher: what the integration tests rely on when they run the
/// built binaries.
@Suite("ChildProcess (test support)", .timeLimit(.minutes(1)))
struct ChildProcessTests {
    @Test("Captures both streams and the exit status; the child sees only its three standard descriptors")
    func capturesAndClosesDescriptors() async throws {
        // Descriptors open in this process (a socket, a file) must not reach the child.
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socketDescriptor) }
        let child = try ChildProcess.spawn("/bin/sh", arguments: ["-c", "ls /proc/$$/fd; echo oops >&2; exit 7"],
                                           environment: ["PATH": "/usr/bin:/bin"])
        let ended = await child.waitForExit()
        await child.waitForStreams()
        #expect(ended == ChildProcess.Termination(status: 7, signaled: false))
        let descriptors = String(decoding: child.standardOutput, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        #expect(descriptors.sorted() == ["0", "1", "2"])
        #expect(String(decoding: child.standardError, as: UTF8.self) == "oops\n")
    }

    @Test("A signal ends the child and is reported as such; signalling an ended child does nothing")
    func reportsSignals() async throws {
        let child = try ChildProcess.spawn("/bin/sleep", arguments: ["30"], environment: [:], output: .discard, errors: .discard)
        #expect(child.isRunning)
        child.signal(SIGKILL)
        #expect(await child.waitForExit() == ChildProcess.Termination(status: SIGKILL, signaled: true))
        child.signal(SIGKILL)
        #expect(!child.isRunning)
    }

    @Test("Runs in the directory asked for; a missing executable is a clear error")
    func directoryAndMissingExecutable() async throws {
        let child = try ChildProcess.spawn("/bin/pwd", arguments: [], environment: [:], directory: "/usr/share", errors: .discard)
        _ = await child.waitForExit()
        await child.waitForStreams()
        #expect(String(decoding: child.standardOutput, as: UTF8.self) == "/usr/share\n")
        #expect(throws: ChildProcess.SpawnFailure.self) {
            try ChildProcess.spawn("/nonexistent/binary", arguments: [], environment: [:])
        }
    }
}
