// swift-tools-version:6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

/// The codec and transport are on every message's path. The hub's own release builds
/// (`scripts/serve.sh`, `loadtest/`, `Benchmarks/`, `deploy/Containerfile`) set
/// `SESSIONHUB_UNCHECKED_EXCLUSIVITY=1` so that they skip the runtime's dynamic exclusivity checks
/// (static checks still apply), which cost 15–20 % of small-frame parsing (Benchmarks/README.md).
/// Without it the package uses no unsafe flags, so an app can depend on it by version (SwiftPM
/// refuses `unsafeFlags` in such a dependency).
let uncheckedExclusivity = Context.environment["SESSIONHUB_UNCHECKED_EXCLUSIVITY"] == "1"
let hotPath: [SwiftSetting] = strict + (uncheckedExclusivity
    ? [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]
    : [])

let package = Package(
    name: "SessionHub",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .executable(name: "sessionhub", targets: ["sessionhub"]),
        .executable(name: "sessionhub-bot", targets: ["sessionhub-bot"]),
        .library(name: "WebSocket", targets: ["WebSocket"]),
        .library(name: "WebSocketTransport", targets: ["WebSocketTransport"]),
        .library(name: "HubDomain", targets: ["HubDomain"]),
        .library(name: "HubProtocol", targets: ["HubProtocol"]),
        .library(name: "HubStorage", targets: ["HubStorage"]),
        // For players' apps: the hub's protocol as typed async calls and a live session model.
        .library(name: "SessionHubClient", targets: ["SessionHubClient"]),
        // For the journal benchmark (loadtest/: `sessionhub-loadtest journal`).
        .library(name: "HubStoragePostgres", targets: ["HubStoragePostgres"]),
        // For the token fuzz target (Fuzzing/), which calls TokenAuthority through its public API.
        .library(name: "SessionHubServer", targets: ["SessionHubServer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // TLS for the client's wss:// (postgres-nio uses it too).
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The settings tree: flags, environment and a JSON file (no YAML, no reloading).
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: ["JSON", "CommandLineArguments"]),
        // PostgreSQL, the shared store of a cluster (journal, history, profiles, node registry).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // The process's services and signals (graceful shutdown); postgres-nio builds on it too.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // ES256 and RS256 signatures of identity-provider tokens (JWKS). Already in the closure
        // through postgres-nio; any version it accepts will do.
        .package(url: "https://github.com/apple/swift-crypto", "3.9.0"..<"5.0.0"),
    ],
    targets: [
        // System zlib, used by permessage-deflate (RFC 7692).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // System libcrypto (OpenSSL, from libssl-dev): HMAC-SHA256 for tokens, secure random bytes.
        .systemLibrary(
            name: "COpenSSLCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // Layer 1: the RFC 6455 + RFC 7692 protocol core. Sans-IO: bytes in, events and bytes out.
        .target(
            name: "WebSocket",
            dependencies: [
                "CZlib",
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: hotPath
        ),
        // Locks and counters for shared state: Synchronization on Linux, os on Apple platforms
        // before macOS 15 / iOS 18 (the client library supports macOS 14 / iOS 17).
        .target(
            name: "SessionHubSync",
            swiftSettings: strict
        ),
        // Layer 2: the core on SwiftNIO — HTTP/1.1 upgrade, frame handler, keepalive, back-pressure, client.
        .target(
            name: "WebSocketTransport",
            dependencies: [
                "WebSocket",
                "SessionHubSync",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: hotPath
        ),
        // Layer 3: the hub domain — sessions, scenarios, recasts, stats, XP, presence. No sockets.
        .target(
            name: "HubDomain",
            dependencies: ["SessionHubSync"],
            resources: [.copy("Resources/Scenarios")],
            swiftSettings: strict
        ),
        // Layer 4: the wire protocol — versioned JSON messages shared by server, bot and load test.
        .target(
            name: "HubProtocol",
            dependencies: ["HubDomain"],
            swiftSettings: strict
        ),
        // Layer 5: storage — repositories behind protocols; SQLite (system libsqlite3, WAL) by default,
        // PostgreSQL (postgres-nio) for a cluster.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "HubStorage",
            dependencies: ["HubDomain", "CSQLite", "CZlib"],
            swiftSettings: strict
        ),
        // Layer 5: the PostgreSQL implementation of the same ports, for a cluster (postgres-nio).
        .target(
            name: "HubStoragePostgres",
            dependencies: [
                "HubDomain", "HubStorage",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // Layer 6: wiring — configuration, HTTP routes, WebSocket endpoints, lifecycle.
        .target(
            name: "SessionHubServer",
            dependencies: [
                "COpenSSLCrypto",
                "HubDomain",
                "HubProtocol",
                "HubStorage",
                "WebSocket",
                "WebSocketTransport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            resources: [.copy("Dashboard/Static"), .copy("Web/Play")],
            swiftSettings: strict
        ),
        // The client library: what an app links (docs/CLIENT.md).
        .target(
            name: "SessionHubClient",
            dependencies: [
                "HubProtocol",
                "HubDomain",
                "WebSocket",
                "WebSocketTransport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // The account API over HTTP/1.1 (HubHTTPClient).
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict
        ),
        // Layer 7: the `sessionhub` command.
        .executableTarget(
            name: "sessionhub",
            dependencies: [
                "SessionHubServer",
                "HubDomain",
                "HubStorage",
                "HubProtocol",
                "HubStoragePostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // Layer 7: the headless bot player (tests, demos, load).
        .executableTarget(
            name: "sessionhub-bot",
            dependencies: [
                "SessionHubClient",
                "HubProtocol",
                "HubDomain",
                "WebSocket",
                "WebSocketTransport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "WebSocketTests",
            dependencies: ["WebSocket", .product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "WebSocketTransportTests",
            dependencies: [
                "WebSocket",
                "WebSocketTransport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HubDomainTests",
            dependencies: ["HubDomain"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HubStorageTests",
            dependencies: [
                "HubStorage", "HubStoragePostgres", "HubDomain", "HubProtocol",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SessionHubClientTests",
            dependencies: ["SessionHubClient", "HubProtocol", "HubDomain"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "BotTests",
            dependencies: ["sessionhub-bot", "HubDomain"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HubProtocolTests",
            dependencies: ["HubProtocol", "HubDomain"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SessionHubServerTests",
            dependencies: [
                "SessionHubServer",
                "SessionHubClient",
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                "HubDomain",
                "HubProtocol",
                "HubStorage",
                "WebSocket",
                "WebSocketTransport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
