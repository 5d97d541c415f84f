import ArgumentParser
import Foundation
import SessionHubServer

/// `sessionhub settings`: the settings tree — every limit and timeout with its key, default, flag
/// and environment variable; or the values a `serve` with the same flags, environment and file
/// would run with.
struct SettingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "List every limit and timeout (key, default, flag, environment variable), or the effective values."
    )

    @Flag(help: "Print the Markdown table that docs/PROTOCOL.md §11 and the README carry.")
    var markdown = false

    @Flag(help: "Load flags, SESSIONHUB_* variables and --config like `serve` does, and print the values it would use.")
    var effective = false

    @Option(help: "JSON file of settings (with --effective); SESSIONHUB_CONFIG names one too.")
    var config: String?

    @Argument(parsing: .allUnrecognized, help: .hidden)
    var settings: [String] = []

    func run() async throws {
        guard effective else {
            guard settings.isEmpty else { throw ValidationError("setting flags are only read with --effective") }
            FileHandle.standardOutput.write(Data((markdown ? SettingsTable.markdown() : SettingsTable.text()).utf8))
            return
        }
        var configuration = HubServerConfiguration(secret: [])
        let sources = SettingsSources(arguments: settings, environment: ProcessInfo.processInfo.environment,
                                      file: config ?? ProcessInfo.processInfo.environment["SESSIONHUB_CONFIG"])
        do {
            let report = try await SettingsLoader.load(sources, into: &configuration)
            FileHandle.standardOutput.write(Data(SettingsTable.effective(configuration, report: report).utf8))
            for name in report.unknownEnvironment {
                FileHandle.standardError.write(Data("warning: \(name) names no setting\n".utf8))
            }
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(64)
        }
    }
}
