import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The real `sessionhub` binary running as a child process, for tests that stop it with a signal
/// (SIGTERM for a drain, SIGKILL for a crash) and start it again on the same database.
///
/// It runs with ``HubTestServer/secret``, so ``HubTestServer/token(_:name:ttl:admin:)`` tokens
/// work against it, JSON logs on standard error (kept for failure messages), two threads, and the
/// default journal (`SESSIONHUB_JOURNAL` is not passed on).
final class HubProcess: Sendable {
    private let child: ChildProcess
    private let portFile: String

    private init(child: ChildProcess, portFile: String) {
        self.child = child
        self.portFile = portFile
    }

    /// Starts `sessionhub serve` on `database` in `directory`, on `port` (0: any free port, read
    /// it with ``waitForPort(seconds:)``), with `arguments` added.
    static func start(_ binary: URL, directory: URL, database: String, name: String, port: Int = 0,
                      arguments: [String] = ["--server-drain-timeout", "5"]) throws -> HubProcess {
        let portFile = directory.appendingPathComponent("port-\(name)").path
        var environment = ProcessInfo.processInfo.environment
        environment["SESSIONHUB_SECRET"] = String(decoding: HubTestServer.secret, as: UTF8.self)
        // The journal the binary picks by default unless `arguments` name one (`--journal`).
        environment["SESSIONHUB_JOURNAL"] = nil
        let child = try ChildProcess.spawn(
            binary.path,
            arguments: ["serve", "--port", String(port), "--port-file", portFile, "--database", database,
                        "--threads", "2", "--log-format", "json"] + arguments,
            environment: environment, directory: directory.path, output: .discard, errors: .capture)
        return HubProcess(child: child, portFile: portFile)
    }

    /// The port the child wrote once listening.
    func waitForPort(seconds: Double = 30) async throws -> Int {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8),
               let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                return port
            }
            guard child.isRunning else { break }
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
        child.signal(number)
    }

    /// Waits for the child to exit; nil when it is still running after `seconds`.
    func waitForExit(seconds: Double) async -> (status: Int32, normal: Bool)? {
        let deadline = Date().addingTimeInterval(seconds)
        while child.isRunning, Date() < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        guard let termination = child.termination else { return nil }
        // Let the reader thread collect the last of standard error.
        for _ in 0..<100 where !child.streamsDrained {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return (termination.status, !termination.signaled)
    }

    /// Standard error so far.
    var stderr: String { String(decoding: child.standardError, as: UTF8.self) }

    /// Kills the child if it still runs (test cleanup).
    func kill() {
        child.signal(SIGKILL)
    }

    /// Why the child could not be used.
    struct Failure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
