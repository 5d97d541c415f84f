import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The real `sessionhub` binary running as a child process, for tests that stop it with a signal
/// (SIGTERM for a drain, SIGKILL for a crash) and start it again on the same database.
///
/// It runs with ``HubTestServer/secret``, so ``HubTestServer/token(_:name:ttl:admin:)`` tokens
/// work against it, JSON logs on standard error (kept for failure messages), two threads.
final class HubProcess: @unchecked Sendable {
    private let process: Process
    private let portFile: String
    private let output = Mutex<(stderr: Data, done: Bool)>((Data(), false))

    private init(process: Process, portFile: String) {
        self.process = process
        self.portFile = portFile
    }

    /// Starts `sessionhub serve` on `database` in `directory`, on `port` (0: any free port, read
    /// it with ``waitForPort(seconds:)``), with `arguments` added.
    static func start(_ binary: URL, directory: URL, database: String, name: String, port: Int = 0,
                      arguments: [String] = ["--server-drain-timeout", "5"]) throws -> HubProcess {
        let portFile = directory.appendingPathComponent("port-\(name)").path
        let process = Process()
        process.executableURL = binary
        process.currentDirectoryURL = directory
        process.arguments = ["serve", "--port", String(port), "--port-file", portFile, "--database", database,
                             "--threads", "2", "--log-format", "json"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SESSIONHUB_SECRET"] = String(decoding: HubTestServer.secret, as: UTF8.self)
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let child = HubProcess(process: process, portFile: portFile)
        try process.run()
        // Read standard error on a thread of its own until the child closes it.
        Thread.detachNewThread {
            let handle = errors.fileHandleForReading
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                child.output.withLock { $0.stderr.append(chunk) }
            }
            child.output.withLock { $0.done = true }
        }
        return child
    }

    /// The port the child wrote once listening.
    func waitForPort(seconds: Double = 30) async throws -> Int {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8),
               let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                return port
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw Failure(message: "no port file; stderr:\n\(stderr.suffix(3000))")
    }

    /// Waits until the hub on `port` answers `/readyz` with 200 (about five seconds at most).
    static func waitUntilReady(_ port: Int) async throws {
        for _ in 0..<250 {
            if let reply = try? await HTTPTestClient.request("GET", port: port, "/readyz"), reply.status == 200 { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw Failure(message: "/readyz on port \(port) never answered 200")
    }

    /// Sends the child signal `number`.
    func signal(_ number: Int32) {
        sendSignal(process.processIdentifier, number)
    }

    /// Waits for the child to exit; nil when it is still running after `seconds`.
    func waitForExit(seconds: Double) async -> (status: Int32, normal: Bool)? {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        guard !process.isRunning else { return nil }
        // Let the reader thread collect the last of standard error.
        for _ in 0..<100 where !output.withLock({ $0.done }) {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return (process.terminationStatus, process.terminationReason == .exit)
    }

    /// Standard error so far.
    var stderr: String { String(decoding: output.withLock { $0.stderr }, as: UTF8.self) }

    /// Kills the child if it still runs (test cleanup).
    func kill() {
        if process.isRunning { signal(SIGKILL) }
    }

    /// Why the child could not be used.
    struct Failure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}

/// `kill(2)`, out of reach of ``HubProcess/kill()``'s name.
private func sendSignal(_ pid: Int32, _ number: Int32) {
    _ = kill(pid, number)
}
