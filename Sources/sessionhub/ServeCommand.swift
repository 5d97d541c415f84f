import ArgumentParser
import Dispatch
import Foundation
import HubDomain
import HubStorage
import HubStoragePostgres
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import SessionHubServer
import WebSocketTransport

/// `sessionhub serve`: runs the hub until SIGINT or SIGTERM.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the hub (localhost, embedded defaults).",
        discussion: """
            Every limit and timeout is a setting of the tree that `sessionhub settings` lists with its \
            default: pass it as a flag (e.g. --session-max-text-length 300), as an environment variable \
            (SESSIONHUB_SESSION_MAX_TEXT_LENGTH=300) or in a JSON file given with --config \
            ({"session": {"maxTextLength": 300}}). Flags win over the environment, which wins over the file.
            """
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

    @Flag(inversion: .prefixedNo, help: "Negotiate permessage-deflate.")
    var compression = true

    @Option(help: "Address of a reverse proxy whose X-Forwarded-For (last hop) names the client, for the per-address caps and join budgets (repeatable; default none).")
    var trustedProxy: [String] = []

    @Option(help: "Event loop threads (default: number of cores).")
    var threads: Int = System.coreCount

    @Option(help: "File holding the token signing secret (created with a random secret when missing); SESSIONHUB_SECRET overrides it.")
    var secretFile: String = "data/dev-secret"

    @Option(help: "SQLite file for profiles, progress and history (created with its directory when missing); the journal of live sessions goes beside it, in NAME-journal.log/ (NAME-journal.sqlite with --journal sqlite).")
    var database: String = "data/sessionhub.sqlite"

    @Option(help: "Journal of live sessions on SQLite storage: log (an append-only log in NAME-journal.log/: one write per group commit, no checkpoint; the default) or sqlite (NAME-journal.sqlite); SESSIONHUB_JOURNAL names it too. Open sessions move over when it changes.")
    var journal: JournalKind?

    @Flag(help: "Keep everything in memory instead (nothing survives a restart; no /api routes).")
    var inMemory = false

    @Option(help: "PostgreSQL instead of SQLite, for a cluster of nodes: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (or ?host=/socket/dir); SESSIONHUB_DATABASE_URL names it too.")
    var databaseURL: String?

    @Option(help: "This node's id in its cluster ([a-z0-9-], at most 63; default: the host name); SESSIONHUB_NODE_ID.")
    var nodeId: String?

    @Option(help: "The WebSocket URL clients are sent to for this node (default ws://HOST:PORT/ws); SESSIONHUB_PUBLIC_URL.")
    var publicURL: String?

    @Option(help: "The HTTP URL peers and operators reach this node at (default http://HOST:PORT); SESSIONHUB_INTERNAL_URL.")
    var internalURL: String?

    @Option(help: "Directory of extra scenario files (*.json), added to the built-in ones.")
    var scenariosDir: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    @Option(help: "Log format: text (one human-readable line per event) or json (one JSON object per line).")
    var logFormat: LogFormat = .text

    @Option(help: "JSON file of settings (see `sessionhub settings`); SESSIONHUB_CONFIG names one too.")
    var config: String?

    @Argument(parsing: .allUnrecognized, help: .hidden)
    var settings: [String] = []

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        guard threads > 0 else { throw ValidationError("--threads must be positive") }
        for address in trustedProxy where (try? SocketAddress(ipAddress: address, port: 0)) == nil {
            throw ValidationError("--trusted-proxy \(address) is not an IP address")
        }
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
        var configuration = HubServerConfiguration(
            host: host, port: port, enableEcho: enableEcho, enableRooms: enableRooms, compression: compression,
            threads: threads, secret: secret, scenariosDirectory: scenariosDir)
        let sources = SettingsSources(arguments: settings, environment: ProcessInfo.processInfo.environment,
                                      file: config ?? ProcessInfo.processInfo.environment["SESSIONHUB_CONFIG"])
        let report: SettingsReport
        do {
            report = try await SettingsLoader.load(sources, into: &configuration)
        } catch {
            logger.critical("invalid settings", metadata: ["problem": "\(error)"])
            throw ExitCode(64)
        }
        for name in report.unknownEnvironment {
            logger.warning("environment variable names no setting (see `sessionhub settings`)", metadata: ["name": "\(name)"])
        }
        for setting in report.applied {
            logger.info("setting", metadata: ["key": "\(setting.key)", "value": "\(setting.value)", "from": "\(setting.source)"])
        }
        configuration.connectionPolicy.trustedProxies = trustedProxy
        let environment = ProcessInfo.processInfo.environment
        let journalKind: JournalKind
        if let journal {
            journalKind = journal
        } else if let text = environment["SESSIONHUB_JOURNAL"], !text.isEmpty {
            guard let kind = JournalKind(rawValue: text) else {
                logger.critical("SESSIONHUB_JOURNAL must be sqlite or log", metadata: ["value": "\(text)"])
                throw ExitCode(78)
            }
            journalKind = kind
        } else {
            journalKind = .default
        }
        // The hub's event loops, made first: PostgreSQL's connections run on them too.
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: configuration.threads)
        let persistence: HubPersistence
        if let text = databaseURL ?? environment["SESSIONHUB_DATABASE_URL"], !inMemory {
            do {
                persistence = try await Self.postgres(text, node: try nodeLocation(environment),
                                                      internalURL: internalURL ?? environment["SESSIONHUB_INTERNAL_URL"]
                                                          ?? "http://\(host):\(port)",
                                                      commitsInFlight: configuration.cluster.journalCommitsInFlight,
                                                      eventLoopGroup: loops, logger: logger)
            } catch {
                try? await loops.shutdownGracefully()
                throw error
            }
        } else if inMemory {
            persistence = .inMemory()
        } else {
            do {
                // One loop: the journal commits on it, where the sessions run (no thread switch).
                persistence = try .sqlite(path: database, logger: logger, commitInterval: configuration.journalCommitInterval,
                                          commitLoop: configuration.threads == 1 ? loops.next() : nil,
                                          appenderLoops: Array(loops.makeIterator()), journal: journalKind,
                                          wordReviewCacheCapacity: configuration.wordReviewCacheCapacity)
            } catch {
                logger.critical("cannot open the database", metadata: ["path": "\(database)", "error": "\(error)"])
                try? await loops.shutdownGracefully()
                throw ExitCode(74)
            }
            logger.info("storage", metadata: ["database": "\(database)", "journal": "\(journalKind.rawValue)"])
        }
        let hub: HubServer
        let bound: Int
        do {
            hub = try HubServer(configuration: configuration, persistence: persistence, eventLoopGroup: loops, logger: logger)
            bound = try await hub.start()
        } catch {
            // Nothing is served: the storage closes, then the loops it may run on stop.
            await persistence.close?()
            try? await loops.shutdownGracefully()
            throw Self.startFailure(error, logger: logger)
        }
        if let portFile {
            try "\(bound)\n".write(toFile: portFile, atomically: true, encoding: .utf8)
        }
        logger.info("sessionhub ready", metadata: ["port": "\(bound)", "echo": "\(enableEcho)", "rooms": "\(enableRooms)",
                                                   "version": "\(BuildInfo.version)"])
        let drain = configuration.drainTimeoutSeconds
        var group = ServiceGroupConfiguration(
            services: [.init(service: HubService(server: hub, drainDeadline: .seconds(Int64(drain)), logger: logger))],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        // Past the drain timeout and some slack for the history writes, the group cancels.
        group.maximumGracefulShutdownDuration = .seconds(drain + 15)
        try await ServiceGroup(configuration: group).run()
    }
}

extension ServeCommand {
    /// The exit code (logged once) for an error of creating or starting the hub; anything else
    /// is rethrown as it is.
    static func startFailure(_ error: any Error, logger: Logger) -> any Error {
        switch error {
        case let error as JWKSError:
            logger.critical("invalid identity provider settings or keys", metadata: ["code": "\(error.code)", "problem": "\(error)"])
            return ExitCode(78)
        case let error as SettingsError:
            logger.critical("invalid settings", metadata: ["problem": "\(error)"])
            return ExitCode(64)
        case let error as NodeRegistryError:
            logger.critical("cannot join the cluster", metadata: ["error": "\(error)"])
            return ExitCode(75)
        default:
            return error
        }
    }

    /// This node as its cluster knows it: `--node-id` (checked) and `--public-url`.
    func nodeLocation(_ environment: [String: String]) throws -> NodeLocation {
        let id = nodeId ?? environment["SESSIONHUB_NODE_ID"] ?? NodeIdentity.defaultNodeId()
        guard NodeIdentity.isValid(id) else {
            throw ValidationError("--node-id \(id.prefix(80)) must be 1 to 63 of a-z, 0-9 and -, starting with a letter or digit")
        }
        let url = publicURL ?? environment["SESSIONHUB_PUBLIC_URL"] ?? "ws://\(host):\(port)/ws"
        guard url.hasPrefix("ws://") || url.hasPrefix("wss://") else {
            throw ValidationError("--public-url \(url.prefix(200)) must be a ws:// or wss:// URL")
        }
        return NodeLocation(nodeId: id, publicURL: url)
    }

    /// Opens the PostgreSQL persistence, or stops the start with one line naming the URL.
    static func postgres(_ text: String, node: NodeLocation, internalURL: String, commitsInFlight: Int,
                         eventLoopGroup: any EventLoopGroup, logger: Logger) async throws -> HubPersistence {
        do {
            let url = try PostgresURL(text)
            let persistence = try await HubPersistence.postgres(url: url, node: node, internalURL: internalURL,
                                                                eventLoopGroup: eventLoopGroup, commitsInFlight: commitsInFlight,
                                                                logger: logger)
            logger.info("storage", metadata: ["database": "\(url)", "node": "\(node.nodeId)", "publicURL": "\(node.publicURL)"])
            return persistence
        } catch {
            logger.critical("cannot open the database", metadata: ["error": "\(error)"])
            throw ExitCode(74)
        }
    }
}

