// swift-tools-version:6.1
// Benchmarks of the SessionHub package: the WebSocket codec (target `Codec`, module `WebSocket`),
// SQLite storage (target `Storage`, modules `HubStorage` and `HubDomain`) and the hub's own path for
// one `say` (target `HubPath`, modules `HubProtocol`, `HubDomain` and `WebSocketTransport`).
// A separate package so the project itself never depends on ordo-one/benchmark.
// Run: cd Benchmarks && swift package --disable-sandbox benchmark [--target Codec|Storage|HubPath]   (see README.md)
import PackageDescription

let package = Package(
    name: "SessionHubBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "SessionHub", path: ".."),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // MallocInterposer (not jemalloc) backs the malloc metrics on Swift 6.3.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "Codec",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "WebSocket", package: "SessionHub"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Benchmarks/Codec",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        .executableTarget(
            name: "Storage",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "HubStorage", package: "SessionHub"),
                .product(name: "HubDomain", package: "SessionHub"),
            ],
            path: "Benchmarks/Storage",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        .executableTarget(
            name: "Protocol",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "HubProtocol", package: "SessionHub"),
            ],
            path: "Benchmarks/Protocol",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        .executableTarget(
            name: "HubPath",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "HubDomain", package: "SessionHub"),
                .product(name: "HubProtocol", package: "SessionHub"),
                .product(name: "SessionHubClient", package: "SessionHub"),
                .product(name: "WebSocket", package: "SessionHub"),
                .product(name: "WebSocketTransport", package: "SessionHub"),
            ],
            path: "Benchmarks/HubPath",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
