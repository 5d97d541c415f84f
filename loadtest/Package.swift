// swift-tools-version:6.1
// sessionhub-loadtest: the load generator and report of SessionHub (see README.md).
// A package of its own so its build (./.build) never touches the hub's; it uses the hub's
// client-side modules through the path dependency "..".
import PackageDescription

let package = Package(
    name: "sessionhub-loadtest",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "SessionHub", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "sessionhub-loadtest",
            dependencies: [
                .product(name: "WebSocketTransport", package: "SessionHub"),
                .product(name: "WebSocket", package: "SessionHub"),
                .product(name: "HubProtocol", package: "SessionHub"),
                .product(name: "SessionHubClient", package: "SessionHub"),
                .product(name: "HubDomain", package: "SessionHub"),
                .product(name: "HubStorage", package: "SessionHub"),
                .product(name: "HubStoragePostgres", package: "SessionHub"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
