import ArgumentParser
import Foundation
import WebSocketTransport

/// `sessionhub-bot play`: plays one session against a running hub and checks it (see `docs/BOT.md`).
///
/// Argument errors exit with 64 (argument-parser's usage error); the run itself exits with
/// 0 (as expected), 1 (a check failed), 2 (setup failed) or 3 (timeout).
struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play one session (solo, hosted with N bot players, or joining a code) and check it.",
        discussion: """
            Exactly one of --solo, --host (with --players N) or --join CODE. Tokens come from --token \
            (once per player) or from --token-cmd, which is run once per player with \
            `--user <prefix>-<n> --name "<Prefix> <n>"` appended and must print one token. \
            Exit codes: 0 ok, 1 check failed, 2 setup failed, 3 timeout.
            """
    )

    @Option(help: ArgumentHelp("The hub's WebSocket endpoint.", valueName: "ws://HOST:PORT/ws"))
    var url: String

    @Option(name: .customLong("token"), help: ArgumentHelp("A bearer token; repeat once per player (host mode: the host's first).", valueName: "token"))
    var tokens: [String] = []

    @Option(name: .customLong("token-cmd"), help: ArgumentHelp("A command printing a token for `--user ID --name NAME` appended to it (run through /bin/sh).", valueName: "command"))
    var tokenCommand: String?

    @Flag(help: "Play a SOLO session (startSolo).")
    var solo = false

    @Flag(help: "Host a shared session and fill it with --players bot players.")
    var host = false

    @Option(help: "Players in host mode, the host included (2–8).")
    var players: Int?

    @Option(help: ArgumentHelp("Join someone else's session by its join code.", valueName: "code"))
    var join: String?

    @Option(help: ArgumentHelp("Scenario to start (solo and host; default ordering-coffee).", valueName: "id"))
    var scenario: String?

    @Option(help: "Lines per player (default: enough to reach the scenario's goal).")
    var lines: Int?

    @Option(name: .customLong("pace-ms"), help: "Pause before each line, in milliseconds.")
    var paceMs: Int = 300

    @Option(name: .customLong("recast-probability"), help: "Chance (0–1) that a player corrects another player's line.")
    var recastProbability: Double = 0.3

    @Option(name: .customLong("accept-probability"), help: "Chance (0–1) that a speaker accepts a correction of their line.")
    var acceptProbability: Double = 0.7

    @Option(name: .customLong("drop-after"), help: "Drop one player's connection after this many lines, then resume and check the replay.")
    var dropAfter: Int?

    @Option(help: "Seed of the players' random choices (default: random; the summary shows it).")
    var seed: UInt64?

    @Option(name: .customLong("user-prefix"), help: "User ids asked of --token-cmd are <prefix>-1, <prefix>-2, …")
    var userPrefix: String = "bot"

    @Flag(help: "Print one JSON summary instead of the live transcript.")
    var json = false

    @Option(help: "Limit for the whole run, in seconds.")
    var timeout: Int = 120

    /// The scenario used when `--scenario` is not given.
    static let defaultScenario = "ordering-coffee"

    func validate() throws {
        let mode = try mode()
        _ = try parsedURL()
        if !tokens.isEmpty, tokenCommand != nil { throw ValidationError("give either --token or --token-cmd, not both") }
        if tokens.isEmpty, tokenCommand == nil { throw ValidationError("missing tokens: give --token (once per player) or --token-cmd") }
        let count = mode.playerCount
        if !tokens.isEmpty, tokens.count != count {
            throw ValidationError("\(tokens.count) --token given for \(count) player\(count == 1 ? "" : "s"): give one per player, or use --token-cmd")
        }
        if let empty = tokens.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            throw ValidationError("--token number \(empty + 1) is empty")
        }
        if let tokenCommand, tokenCommand.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--token-cmd is empty") }
        if let scenario, scenario.isEmpty { throw ValidationError("--scenario is empty") }
        if scenario != nil, mode.isGuest { throw ValidationError("--scenario is not used with --join: the host chose the scenario") }
        if let lines, lines < 1 { throw ValidationError("--lines must be at least 1 (got \(lines))") }
        if paceMs < 0 { throw ValidationError("--pace-ms must not be negative (got \(paceMs))") }
        for (name, value) in [("--recast-probability", recastProbability), ("--accept-probability", acceptProbability)]
        where !(0...1).contains(value) {
            throw ValidationError("\(name) must be between 0 and 1 (got \(value))")
        }
        if let dropAfter {
            if dropAfter < 1 { throw ValidationError("--drop-after must be at least 1 (got \(dropAfter))") }
            if let lines, mode.isGuest, dropAfter > lines {
                throw ValidationError("--drop-after \(dropAfter) is more than the \(lines) lines this player speaks (--lines)")
            }
            if let lines, !mode.isGuest, dropAfter >= lines * count {
                throw ValidationError("--drop-after \(dropAfter) needs more than \(dropAfter) lines in the session, but \(count) "
                                      + "player\(count == 1 ? "" : "s") × --lines \(lines) speak only \(lines * count)")
            }
        }
        if timeout < 1 { throw ValidationError("--timeout must be at least 1 second (got \(timeout))") }
        let prefixOK = !userPrefix.isEmpty && userPrefix.utf8.count <= 100
            && userPrefix.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0)) }
        if !prefixOK { throw ValidationError("--user-prefix must be 1–100 ASCII letters, digits, '-', '_' or '.' (got \"\(userPrefix)\")") }
    }

    /// The mode from `--solo`, `--host --players N` or `--join CODE`.
    private func mode() throws -> BotMode {
        let chosen = [solo ? "--solo" : nil, host ? "--host" : nil, join != nil ? "--join" : nil].compactMap { $0 }
        guard chosen.count == 1 else {
            throw ValidationError(chosen.isEmpty ? "choose a mode: --solo, --host --players N, or --join CODE"
                                                 : "choose one mode, not \(chosen.joined(separator: " and "))")
        }
        if let players, !host { throw ValidationError("--players \(players) only goes with --host") }
        if solo { return .solo }
        if let join {
            let code = join.filter { !$0.isWhitespace && $0 != "-" }
            guard !code.isEmpty else { throw ValidationError("--join needs a join code (e.g. SVT2CH)") }
            return .join(code: code)
        }
        guard let players else { throw ValidationError("--host needs --players N (2–8), the host included") }
        guard (2...8).contains(players) else { throw ValidationError("--players must be 2 to 8 (got \(players))") }
        return .host(players: players)
    }

    private func parsedURL() throws -> WebSocketURL {
        do {
            return try WebSocketURL(parsing: url)
        } catch {
            throw ValidationError("--url \(url): \(error) (expected ws://HOST:PORT/ws)")
        }
    }

    /// The validated settings.
    func options() throws -> BotOptions {
        BotOptions(url: try parsedURL(),
                   tokens: tokenCommand.map(TokenSource.command) ?? .fixed(tokens),
                   mode: try mode(),
                   scenarioId: scenario ?? Self.defaultScenario,
                   linesPerPlayer: lines,
                   pace: .milliseconds(paceMs),
                   recastProbability: recastProbability,
                   acceptProbability: acceptProbability,
                   dropAfter: dropAfter,
                   json: json,
                   timeout: .seconds(timeout),
                   seed: seed ?? UInt64.random(in: 0...UInt64.max),
                   userPrefix: userPrefix)
    }

    func run() async throws {
        let options = try options()
        let printer = TranscriptPrinter(live: !json)
        let report = await BotTable(options: options, printer: printer).run()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            printer.emit(json: try encoder.encode(report))
        } else {
            printer.summarize(report)
        }
        for problem in report.problems { printer.complain(problem) }
        if report.exitCode != 0 { throw ExitCode(report.exitCode) }
    }
}
