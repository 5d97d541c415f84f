import ArgumentParser
import Dispatch
import Foundation
import HubDomain
import Logging
import NIOCore
import SessionHubServer
import WebSocketTransport

/// `sessionhub serve`: runs the hub until SIGINT or SIGTERM.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the hub (localhost, embedded defaults)."
    )

    @Option(help: "Address to bind.")
    var host: String = "127.0.0.1"

    @Option(help: "Port to bind; 0 picks a free port.")
    var port: Int = 8080

    @Option(help: "Write the bound port to this file once listening (for scripts using --port 0).")
    var portFile: String?

    @Flag(help: "Serve the /echo diagnostic endpoint (for conformance suites and benchmarks).")
    var enableEcho = false

    @Flag(help: "Serve the /room/<name> raw relay diagnostic (for the peer benchmark kit).")
    var enableRooms = false

    @Option(help: "Largest WebSocket message on /echo and /room in bytes, after decompression; larger ones are refused with close 1009 (/ws has the hub's own \(Defaults.limits.maxMessageBytes)).")
    var maxMessageSize: Int = 1 << 20

    @Flag(inversion: .prefixedNo, help: "Negotiate permessage-deflate.")
    var compression = true

    @Option(help: "Seconds of silence before a keepalive ping; the connection is dropped after two.")
    var pingInterval: Int = 30

    @Option(help: "Open connections beyond which new ones are closed on accept (default: the open-file limit less 128).")
    var maxConnections: Int?

    @Option(help: "Seconds a request head may take to arrive (from accept; later requests: from their first byte); 408 or a silent close beyond (default: \(Defaults.policy.requestHeadTimeout.seconds)).")
    var requestHeadTimeout: Double?

    @Option(help: "Seconds a request body may take to arrive after its head; 408 beyond (default: \(Defaults.policy.requestBodyTimeout.seconds)).")
    var requestBodyTimeout: Double?

    @Option(help: "Seconds a keep-alive connection may wait for its next request (default: \(Defaults.policy.keepAliveTimeout.seconds)).")
    var keepAliveTimeout: Double?

    @Option(help: "Open connections per client address (default: \(Defaults.policy.maxConnectionsPerAddress)).")
    var maxConnectionsPerAddress: Int?

    @Option(help: "Connections per client address still in the HTTP phase or not yet authenticated on /ws (default: \(Defaults.policy.maxUnauthenticatedConnectionsPerAddress)).")
    var maxUnauthenticatedPerAddress: Int?

    @Option(help: "Authenticated /ws connections per user; the one beyond gets too_many_connections and close 1008 (default: \(Defaults.limits.maxConnectionsPerUser)).")
    var maxConnectionsPerUser: Int?

    @Option(help: "Address of a reverse proxy whose X-Forwarded-For (last hop) names the client, for the per-address caps (repeatable; default none).")
    var trustedProxy: [String] = []

    @Option(help: "Largest request body of the JSON API (/api/..., /admin/...), bytes; 413 beyond (default: \(Defaults.server.maxAPIBodySize)).")
    var maxAPIBodySize: Int?

    @Option(help: "Event loop threads (default: number of cores).")
    var threads: Int = System.coreCount

    @Option(help: "File holding the token signing secret (created with a random secret when missing); SESSIONHUB_SECRET overrides it.")
    var secretFile: String = "data/dev-secret"

    @Option(help: "SQLite file for the journal, profiles, progress and history (created with its directory when missing).")
    var database: String = "data/sessionhub.sqlite"

    @Flag(help: "Keep everything in memory instead (nothing survives a restart; no /api routes).")
    var inMemory = false

    @Option(help: "Directory of extra scenario files (*.json), added to the built-in ones.")
    var scenariosDir: String?

    @Option(help: "Seconds a dropped player's seat is held for them to resume.")
    var graceSeconds: Int = 30

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    @Option(help: "Log format: text (one human-readable line per event) or json (one JSON object per line).")
    var logFormat: LogFormat = .text

    @Option(help: "Seconds to wait on shutdown for connections to finish their close handshake, after every session was ended and saved.")
    var drainTimeout: Int = 5

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        guard maxMessageSize > 0 else { throw ValidationError("--max-message-size must be positive") }
        guard pingInterval > 0 else { throw ValidationError("--ping-interval must be positive") }
        guard graceSeconds >= 0 else { throw ValidationError("--grace-seconds must not be negative") }
        guard threads > 0 else { throw ValidationError("--threads must be positive") }
        if let maxConnections, maxConnections < 1 { throw ValidationError("--max-connections must be positive") }
        for (name, seconds) in [("--request-head-timeout", requestHeadTimeout), ("--request-body-timeout", requestBodyTimeout),
                                ("--keep-alive-timeout", keepAliveTimeout)] {
            if let seconds, !(seconds > 0 && seconds <= 86_400) { throw ValidationError("\(name) must be 0 < seconds ≤ 86400") }
        }
        for (name, value) in [("--max-connections-per-address", maxConnectionsPerAddress),
                              ("--max-unauthenticated-per-address", maxUnauthenticatedPerAddress),
                              ("--max-connections-per-user", maxConnectionsPerUser), ("--max-api-body-size", maxAPIBodySize)] {
            if let value, value < 1 { throw ValidationError("\(name) must be positive") }
        }
        for address in trustedProxy where (try? SocketAddress(ipAddress: address, port: 0)) == nil {
            throw ValidationError("--trusted-proxy \(address) is not an IP address")
        }
        guard drainTimeout >= 0 else { throw ValidationError("--drain-timeout must not be negative") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
        guard inMemory || !database.isEmpty else { throw ValidationError("--database must name a file") }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        switch logFormat {
        case .text:
            LoggingSystem.bootstrap { label in
                var handler = RedactingLogHandler(StreamLogHandler.standardError(label: label))
                handler.logLevel = level
                return handler
            }
        case .json:
            LoggingSystem.bootstrap { label in JSONLogHandler(label: label, level: level) }
        }
        let logger = Logger(label: "sessionhub")
        let secret = try HubSecret.load(file: secretFile)
        var hubConfiguration = HubConfiguration()
        hubConfiguration.graceWindowMillis = Int64(graceSeconds) * 1000
        var configuration = HubServerConfiguration(
            host: host, port: port, enableEcho: enableEcho, enableRooms: enableRooms,
            maxMessageSize: maxMessageSize, compression: compression,
            timeouts: WebSocketTimeouts(pingInterval: .seconds(Int64(pingInterval))), threads: threads,
            secret: secret, scenariosDirectory: scenariosDir, hub: hubConfiguration)
        configuration.maxConnections = maxConnections
        var policy = configuration.connectionPolicy
        if let requestHeadTimeout { policy.requestHeadTimeout = .seconds(requestHeadTimeout) }
        if let requestBodyTimeout { policy.requestBodyTimeout = .seconds(requestBodyTimeout) }
        if let keepAliveTimeout { policy.keepAliveTimeout = .seconds(keepAliveTimeout) }
        if let maxConnectionsPerAddress { policy.maxConnectionsPerAddress = maxConnectionsPerAddress }
        if let maxUnauthenticatedPerAddress { policy.maxUnauthenticatedConnectionsPerAddress = maxUnauthenticatedPerAddress }
        policy.trustedProxies = trustedProxy
        configuration.connectionPolicy = policy
        if let maxConnectionsPerUser { configuration.connectionLimits.maxConnectionsPerUser = maxConnectionsPerUser }
        if let maxAPIBodySize { configuration.maxAPIBodySize = maxAPIBodySize }
        let persistence: HubPersistence
        if inMemory {
            persistence = .inMemory()
        } else {
            do {
                persistence = try .sqlite(path: database, logger: logger)
            } catch {
                logger.critical("cannot open the database", metadata: ["path": "\(database)", "error": "\(error)"])
                throw ExitCode(74)
            }
            logger.info("storage", metadata: ["database": "\(database)"])
        }
        let hub = try HubServer(configuration: configuration, persistence: persistence, logger: logger)
        let bound = try await hub.start()
        if let portFile {
            try "\(bound)\n".write(toFile: portFile, atomically: true, encoding: .utf8)
        }
        logger.info("sessionhub ready", metadata: ["port": "\(bound)", "echo": "\(enableEcho)", "rooms": "\(enableRooms)",
                                                   "version": "\(BuildInfo.version)"])
        let signal = await ShutdownSignal.wait()
        logger.info("shutting down", metadata: ["signal": "\(signal)"])
        await hub.shutdown(deadline: .seconds(Int64(drainTimeout)))
        logger.info("stopped")
    }
}

/// The defaults the optional options fall back to, for their help texts (each default lives in
/// its configuration struct).
private enum Defaults {
    static let policy = ConnectionPolicy()
    static let limits = HubConnectionLimits()
    static let server = HubServerConfiguration(secret: [])
}

extension TimeAmount {
    /// Whole or fractional seconds.
    fileprivate static func seconds(_ value: Double) -> TimeAmount { .nanoseconds(Int64(value * 1e9)) }
    /// In seconds, for help texts.
    fileprivate var seconds: String {
        nanoseconds % 1_000_000_000 == 0 ? "\(nanoseconds / 1_000_000_000)" : "\(Double(nanoseconds) / 1e9)"
    }
}

/// `--log-format`.
enum LogFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}
