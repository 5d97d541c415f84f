// swift-tools-version:6.1
// libFuzzer targets for SessionHub's parsers (docs/FUZZING.md). A separate package so the project's
// own `swift build` never sees executables meant to be linked with libFuzzer.
// Build (scripts/fuzz.sh does this): swift build -c release -Xswiftc -sanitize=fuzzer,address
import PackageDescription

let package = Package(
    name: "SessionHubFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "SessionHub", path: ".."),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // Declares libFuzzer's LLVMFuzzerRunDriver: each target's `main` calls it (SwiftPM points
        // an executable's `main` at the module's own entry point, which would hide libFuzzer's).
        .target(name: "CFuzzerDriver"),
        // The driver loop and the property check every target shares.
        .target(name: "FuzzSupport", dependencies: ["CFuzzerDriver"]),
        .executableTarget(
            name: "FuzzConnection",
            dependencies: [
                "FuzzSupport",
                .product(name: "WebSocket", package: "SessionHub"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "FuzzHandshake",
            dependencies: ["FuzzSupport", .product(name: "WebSocket", package: "SessionHub")]
        ),
        .executableTarget(
            name: "FuzzInflater",
            dependencies: [
                "FuzzSupport",
                .product(name: "WebSocket", package: "SessionHub"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "FuzzClientMessage",
            dependencies: ["FuzzSupport", .product(name: "HubProtocol", package: "SessionHub"),
                           .product(name: "SessionHubClient", package: "SessionHub")]
        ),
        .executableTarget(
            name: "FuzzToken",
            dependencies: ["FuzzSupport", .product(name: "SessionHubServer", package: "SessionHub")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
