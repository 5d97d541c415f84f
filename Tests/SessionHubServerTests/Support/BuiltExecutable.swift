import Foundation
#if canImport(Glibc)
import Glibc
#endif

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
        let child = try ChildProcess.spawn(url.path, arguments: arguments,
                                           environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        // true when the deadline passed with the child running and it was sent SIGTERM.
        let timer = Task { () throws -> Bool in
            try await Task.sleep(for: .seconds(deadline))
            return child.signal(SIGTERM)
        }
        let termination = await child.waitForExit()
        timer.cancel()
        let killed = (try? await timer.value) ?? false
        await child.waitForStreams()
        return Run(status: termination.status, killed: killed,
                   stdout: String(decoding: child.standardOutput, as: UTF8.self),
                   stderr: String(decoding: child.standardError, as: UTF8.self))
    }
}
