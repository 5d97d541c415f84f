import Foundation

/// Mints bearer tokens with a shell command (`--token-cmd`), as `sessionhub-bot` does: the
/// command is run with `--user ID --name NAME` appended (each argument single-quoted) and must
/// print one token. Minting hundreds of tokens one process at a time is slow, so tokens are
/// kept in a cache file keyed by the command and reused while they have more than an hour left
/// (their `exp` claim is read from the JWT payload).
struct TokenCache {
    let command: String
    let cacheFile: URL
    let parallel: Int

    private struct Stored: Codable {
        var command: String
        var tokens: [String: String]
    }

    init(command: String, cacheFile: String?, parallel: Int = 6) {
        self.command = command
        self.parallel = max(1, parallel)
        if let cacheFile {
            self.cacheFile = URL(fileURLWithPath: cacheFile)
        } else {
            let base = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"]
                ?? (NSHomeDirectory() + "/.cache")
            self.cacheFile = URL(fileURLWithPath: base + "/sessionhub-loadtest/tokens-\(Self.fnv1a(command)).json")
        }
    }

    /// Tokens for `users` (id, display name), in order. Throws when the command fails.
    func tokens(for users: [(id: String, name: String)], log: (String) -> Void) throws -> [String] {
        var stored = (try? JSONDecoder().decode(Stored.self, from: Data(contentsOf: cacheFile))) ?? Stored(command: command, tokens: [:])
        if stored.command != command { stored = Stored(command: command, tokens: [:]) }
        let now = Date().timeIntervalSince1970
        var missing: [(id: String, name: String)] = []
        for user in users {
            if let token = stored.tokens[user.id], let exp = Self.expiry(of: token), exp > now + 3600 { continue }
            missing.append(user)
        }
        if !missing.isEmpty {
            log("minting \(missing.count) token(s) with --token-cmd (\(users.count - missing.count) cached)")
            let started = Date()
            var index = 0
            while index < missing.count {
                let batch = missing[index..<min(index + parallel, missing.count)]
                let minted = try mint(Array(batch))
                for (user, token) in zip(batch, minted) { stored.tokens[user.id] = token }
                index += batch.count
                if index % 200 < parallel || index == missing.count {
                    log("  \(index)/\(missing.count) minted (\(String(format: "%.1f", Date().timeIntervalSince(started))) s)")
                }
            }
            try? FileManager.default.createDirectory(at: cacheFile.deletingLastPathComponent(), withIntermediateDirectories: true)
            if let data = try? JSONEncoder().encode(stored) { try? data.write(to: cacheFile, options: .atomic) }
        }
        return users.map { stored.tokens[$0.id]! }
    }

    /// Runs the command once per user, `batch.count` processes at a time.
    private func mint(_ batch: [(id: String, name: String)]) throws -> [String] {
        var running: [(Process, Pipe, Pipe)] = []
        for user in batch {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "\(command) --user \(Self.quote(user.id)) --name \(Self.quote(user.name))"]
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            try process.run()
            running.append((process, out, err))
        }
        var tokens: [String] = []
        for (process, out, err) in running {
            let data = out.fileHandleForReading.readDataToEndOfFile()
            let errData = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let words = String(decoding: data, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" })
            guard process.terminationStatus == 0, words.count == 1 else {
                throw LoadTestFailure.setup("--token-cmd failed (exit \(process.terminationStatus)): \(String(decoding: errData, as: UTF8.self).prefix(500))")
            }
            tokens.append(String(words[0]))
        }
        return tokens
    }

    /// `exp` of a JWT, seconds since the epoch, if readable.
    static func expiry(of token: String) -> Double? {
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { return nil }
        var text = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return (object["exp"] as? NSNumber)?.doubleValue
    }

    static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    static func fnv1a(_ text: String) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return String(hash, radix: 16)
    }
}

/// Why a run could not start or had to stop.
enum LoadTestFailure: Error, CustomStringConvertible {
    case setup(String)

    var description: String {
        switch self {
        case .setup(let text): return text
        }
    }
}
