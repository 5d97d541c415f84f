import Dispatch
import Foundation

/// Runs a command line through `/bin/sh -c` and returns what it printed (for `--token-cmd`).
struct ShellCommand: Sendable {
    /// The command as typed, e.g. `.build/debug/sessionhub token --secret-file F`.
    let command: String

    /// A command to run.
    init(_ command: String) {
        self.command = command
    }

    /// Runs the command with `arguments` appended (each quoted for the shell) and returns its
    /// standard output; a non-zero exit status is a ``BotFailure/setup(_:)`` with its standard error.
    func run(appending arguments: [String]) async throws(BotFailure) -> String {
        let line = ([command] + arguments.map(Self.quote)).joined(separator: " ")
        let result: (status: Int32, output: Data, errors: Data)
        do {
            result = try await Self.execute(line)
        } catch {
            throw .setup("cannot run --token-cmd (\(line)): \(error)")
        }
        guard result.status == 0 else {
            let errors = String(decoding: result.errors, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw .setup("--token-cmd exited with status \(result.status) (\(line))" + (errors.isEmpty ? "" : ": \(errors.prefix(300))"))
        }
        return String(decoding: result.output, as: UTF8.self)
    }

    /// `'text'`, with single quotes escaped.
    static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Runs `/bin/sh -c line`, reading both pipes off the cooperative pool.
    private static func execute(_ line: String) async throws -> (status: Int32, output: Data, errors: Data) {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/bin/sh")
                process.arguments = ["-c", line]
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
                let group = DispatchGroup()
                let errorBox = DataBox()
                DispatchQueue.global().async(group: group) {
                    errorBox.data = errors.fileHandleForReading.readDataToEndOfFile()
                }
                let printed = output.fileHandleForReading.readDataToEndOfFile()
                group.wait()
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, printed, errorBox.data))
            }
        }
    }

    /// Carries standard error back from its reader thread (written once, read after `group.wait()`).
    private final class DataBox: @unchecked Sendable {
        var data = Data()
    }
}
