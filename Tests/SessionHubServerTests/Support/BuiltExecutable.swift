import Dispatch
import Foundation

/// Runs one of the package's built executables (`sessionhub-bot`, `sessionhub`) as a child
/// process for integration tests, with a hard deadline so a hung child fails the test instead of
/// hanging it. The binaries are looked for next to the test bundle (`swift build --build-tests`
/// puts them there), then in `<package>/.build/debug/`.
struct BuiltExecutable: Sendable {
    /// What a finished run left behind.
    struct Run: Sendable, CustomStringConvertible {
        /// The exit status (the signal number when `killed`).
        var status: Int32
        /// Whether the deadline passed and the process was terminated.
        var killed: Bool
        var stdout: String
        var stderr: String

        /// The run for a failure message.
        var description: String {
            "exit \(status)\(killed ? " (killed at the deadline)" : "")\n--- stdout\n\(stdout.suffix(4000))\n--- stderr\n\(stderr.suffix(4000))"
        }
    }

    /// Why a binary could not be run.
    struct Missing: Error, CustomStringConvertible {
        var name: String
        var searched: [String]
        var description: String {
            "\(name) is not built (looked in \(searched.joined(separator: ", "))): run `swift build --build-tests` first"
        }
    }

    /// The binary's location.
    let url: URL

    /// The built executable `name`, or ``Missing``.
    init(_ name: String) throws {
        let directories = Self.searchDirectories()
        for directory in directories {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) {
                url = candidate
                return
            }
        }
        throw Missing(name: name, searched: directories.map(\.path))
    }

    /// Where the test bundle runs from, then the package's debug build directory.
    private static func searchDirectories() -> [URL] {
        var directories: [URL] = []
        if let bundle = Bundle.main.executableURL { directories.append(bundle.deletingLastPathComponent()) }
        if let first = CommandLine.arguments.first, first.hasPrefix("/") {
            directories.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Support
            .deletingLastPathComponent()  // SessionHubServerTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()
        directories.append(packageRoot.appendingPathComponent(".build/debug"))
        return directories
    }

    /// Runs the binary with `arguments` (and `environment` added to this process's), waits for it
    /// to exit, and terminates it if it is still running after `deadline` seconds.
    func run(_ arguments: [String], environment: [String: String] = [:], deadline: Double = 90) async throws -> Run {
        let url = self.url
        // Blocking reads and waits run on threads of their own: the global dispatch queues have
        // only as many threads as cores, and several tests run children at once.
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                let process = Process()
                process.executableURL = url
                process.arguments = arguments
                process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
                let output = Pipe()
                let errors = Pipe()
                process.standardOutput = output
                process.standardError = errors
                process.standardInput = FileHandle.nullDevice
                do {
                    try process.run()
                } catch {
                    continuation.resume(throwing: error)
                    return
                }
                let child = ChildBox(process)
                DispatchQueue.global().asyncAfter(deadline: .now() + deadline) { child.terminateIfRunning() }
                let errorText = DataBox()
                let readErrors = DispatchSemaphore(value: 0)
                Thread.detachNewThread {
                    errorText.data = errors.fileHandleForReading.readDataToEndOfFile()
                    readErrors.signal()
                }
                let printed = output.fileHandleForReading.readDataToEndOfFile()
                readErrors.wait()
                process.waitUntilExit()
                continuation.resume(returning: Run(status: process.terminationStatus, killed: child.wasKilled,
                                                   stdout: String(decoding: printed, as: UTF8.self),
                                                   stderr: String(decoding: errorText.data, as: UTF8.self)))
            }
        }
    }

    /// The child process, for the deadline timer on another thread.
    private final class ChildBox: @unchecked Sendable {
        private let process: Process
        private let lock = NSLock()
        private var killed = false

        init(_ process: Process) {
            self.process = process
        }

        var wasKilled: Bool { lock.withLock { killed } }

        func terminateIfRunning() {
            lock.withLock {
                guard process.isRunning else { return }
                killed = true
                process.terminate()
            }
        }
    }

    /// Carries standard error back from its reader thread (written once, read after the semaphore).
    private final class DataBox: @unchecked Sendable {
        var data = Data()
    }
}
