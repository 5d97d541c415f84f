import Foundation

/// What this binary is: the release version and how it was built, for `GET /admin/api/server`
/// and the start-up log line.
public enum BuildInfo {
    /// The release version of SessionHub.
    public static let version = "0.6.0"

    /// `debug` or `release`.
    public static var configuration: String {
        #if DEBUG
        return "debug"
        #else
        return "release"
        #endif
    }

    /// The Swift compiler this binary was built with (major.minor).
    public static var compiler: String {
        #if compiler(>=6.4)
        return "6.4+"
        #elseif compiler(>=6.3)
        return "6.3"
        #elseif compiler(>=6.2)
        return "6.2"
        #else
        return "6.1"
        #endif
    }

    /// Operating system and architecture.
    public static var platform: String {
        #if os(Linux)
        let os = "linux"
        #elseif os(macOS)
        let os = "macos"
        #else
        let os = "other"
        #endif
        #if arch(x86_64)
        return os + "-x86_64"
        #elseif arch(arm64)
        return os + "-arm64"
        #else
        return os
        #endif
    }

    /// A build identifier stamped by the packaging (the Containerfile sets `SESSIONHUB_BUILD`
    /// to the git commit it was built from); nil when none was given.
    public static var stamp: String? {
        let value = ProcessInfo.processInfo.environment["SESSIONHUB_BUILD"]?.trimmingCharacters(in: .whitespaces)
        guard let value, !value.isEmpty else { return nil }
        return String(value.prefix(64))
    }
}
