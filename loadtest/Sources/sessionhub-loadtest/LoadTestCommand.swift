import ArgumentParser
import Foundation

/// `sessionhub-loadtest`: load generator and report for SessionHub (see loadtest/README.md).
@main
struct LoadTestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessionhub-loadtest",
        abstract: "Load test for SessionHub: sessions over /ws, the peers' room relay, idle connections.",
        subcommands: [SessionsCommand.self, RoomsCommand.self, IdleCommand.self, JournalCommand.self, ReportCommand.self]
    )
}

/// Options every mode shares: where the output goes and which server to watch.
struct OutputOptions: ParsableArguments {
    @Option(help: "PID of the server process: its CPU and RSS are sampled from /proc/PID.")
    var serverPid: Int32?

    @Option(help: "Write the full results as JSON to this file.")
    var json: String?

    @Option(help: "Write a self-contained HTML report (inline SVG charts) to this file.")
    var html: String?

    @Option(help: "Event loop threads of the load generator.")
    var threads: Int = 1

    @Flag(help: "Print only the summary table (no progress lines on stderr).")
    var quiet = false

    func logger() -> @Sendable (String) -> Void {
        let quiet = self.quiet
        return { line in
            if !quiet { FileHandle.standardError.write(Data("[loadtest] \(line)\n".utf8)) }
        }
    }

    func emit(_ report: RunReport) throws {
        print(SummaryTable.render(report), terminator: "")
        if let json { try report.writeJSON(to: json) }
        if let html { try HTMLReport.render(report).write(toFile: html, atomically: true, encoding: .utf8) }
    }
}

struct SessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "R sessions of K players over /ws: fan-out latency, deliveries/s, loss and duplicates by seq.")

    @Option(help: "The hub's WebSocket endpoint, ws://127.0.0.1:PORT/ws. Repeat it for the nodes of a cluster: session i is played on the i-th modulo their number, all its players there.")
    var url: [String]

    @Option(help: "Command that prints one token; run with --user ID --name NAME appended (e.g. \"sessionhub token --secret-file F\").")
    var tokenCmd: String

    @Option(help: "Token cache file (default ~/.cache/sessionhub-loadtest/tokens-<hash of the command>.json).")
    var tokenCache: String?

    @Option(help: "Concurrent sessions (R).")
    var sessions: Int = 10

    @Option(help: "Players per session, host included (K, 2-8 and at most the scenario's maxPlayers).")
    var players: Int = 4

    @Option(help: "Seconds from the start of the ramp to the end of speaking.")
    var duration: Double = 60

    @Option(help: "Lines per second per player (must stay under the hub's linesPerSecond, 5).")
    var rate: Double = 0.5

    @Option(help: "Seconds over which the sessions are started.")
    var ramp: Double = 10

    @Option(help: "Scenario to host; a session that reaches its goal is replaced by a new one.")
    var scenario: String = "town-hall-meeting"

    @Option(help: "User ids are PREFIX-1 … PREFIX-(R·K).")
    var userPrefix: String = "lt"

    @Flag(help: "Offer permessage-deflate (off by default: the peers' loadgen does not offer it either).")
    var deflate = false

    @Flag(help: "Lean player only: decode every message with the hub's ServerMessageDecoder instead of scanning the broadcasts.")
    var fullDecode = false

    @Option(help: "What each player is built on: client (SessionHubClient, the library apps use) or lean (an endpoint that scans messages: the least load-generator CPU, for the hub's ceiling).")
    var player: PlayerKind = .client

    @Option(help: "Seed of the send phases.")
    var seed: UInt64 = 1

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let options = SessionsOptions(
            urls: url, tokenCommand: tokenCmd, tokenCache: tokenCache, sessions: sessions, players: players,
            duration: duration, rate: rate, ramp: ramp, scenario: scenario, serverPid: output.serverPid,
            threads: output.threads, deflate: deflate, userPrefix: userPrefix, fullDecode: fullDecode, seed: seed,
            player: player)
        let report = try await run(SessionsRun(options: options, log: output.logger()).run)
        try output.emit(report)
        if report.lost > 0 || report.duplicated > 0 || report.connectFailures > 0 { throw ExitCode(1) }
    }
}

struct RoomsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rooms",
        abstract: "The peers' room relay (/room/<name>): R rooms of K members, each sending at a fixed rate.")

    @Option(help: "Room endpoint prefix, ws://127.0.0.1:PORT/room (rooms are /room/lt-<run>-<n>).")
    var url: String

    @Option(help: "Rooms.")
    var rooms: Int = 100

    @Option(help: "Members per room.")
    var members: Int = 5

    @Option(help: "Seconds of sending.")
    var duration: Double = 20

    @Option(help: "Messages per second per member.")
    var rate: Double = 10

    @Option(help: "Message size in bytes (as the peers' loadgen: at least ~40).")
    var size: Int = 100

    @Option(help: "Handshakes at once while connecting.")
    var parallel: Int = 64

    @Option(help: "Pause after everyone joined, before sending, seconds.")
    var settle: Double = 1

    @Option(help: "Longest wait for in-flight deliveries after sending, seconds.")
    var drain: Double = 5

    @Option(help: "Label for the report (server name).")
    var label: String = ""

    @Option(help: "Seed of the send phases.")
    var seed: UInt64 = 1

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let options = RoomsOptions(
            url: url, rooms: rooms, members: members, duration: duration, rate: rate, size: size, parallel: parallel,
            settle: settle, drain: drain, serverPid: output.serverPid, threads: output.threads, label: label, seed: seed)
        let report = try await run(RoomsRun(options: options, log: output.logger()).run)
        try output.emit(report)
    }
}

struct IdleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "idle",
        abstract: "N idle connections (authenticated /ws, or /echo) held open: server memory per connection.")

    @Option(help: "ws://127.0.0.1:PORT/ws (needs --token-cmd) or ws://127.0.0.1:PORT/echo.")
    var url: String

    @Option(help: "Connections to open.")
    var connections: Int = 10_000

    @Option(help: "Command that prints one token (see sessions).")
    var tokenCmd: String?

    @Option(help: "Token cache file.")
    var tokenCache: String?

    @Option(help: "Distinct users the connections authenticate as (round-robin); a user may hold many connections.")
    var users: Int = 200

    @Option(help: "User ids are PREFIX-1 … PREFIX-users.")
    var userPrefix: String = "idle"

    @Option(help: "Seconds to hold the connections once open.")
    var hold: Double = 10

    @Option(help: "Handshakes at once.")
    var parallel: Int = 64

    @Flag(help: "Offer permessage-deflate.")
    var deflate = false

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let options = IdleOptions(
            url: url, connections: connections, tokenCommand: tokenCmd, tokenCache: tokenCache, users: users,
            userPrefix: userPrefix, hold: hold, parallel: parallel, serverPid: output.serverPid, threads: output.threads,
            deflate: deflate)
        let report = try await run(IdleRun(options: options, log: output.logger()).run)
        try output.emit(report)
    }
}

extension AsyncParsableCommand {
    /// Runs a mode, turning setup failures into exit code 2 with the message.
    func run(_ body: () async throws -> RunReport) async throws -> RunReport {
        do {
            return try await body()
        } catch let failure as LoadTestFailure {
            FileHandle.standardError.write(Data("sessionhub-loadtest: \(failure)\n".utf8))
            throw ExitCode(2)
        }
    }
}

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Print the summary table of a saved --json result (and optionally redraw its HTML).")

    @Argument(help: "A JSON file written with --json.")
    var file: String

    @Option(help: "Write the HTML report to this file.")
    var html: String?

    func run() throws {
        let report = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: file)))
        print(SummaryTable.render(report), terminator: "")
        if let html { try HTMLReport.render(report).write(toFile: html, atomically: true, encoding: .utf8) }
    }
}
