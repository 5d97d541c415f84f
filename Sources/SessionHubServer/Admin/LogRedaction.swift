import Logging

/// Keeps credentials out of the logs. No log call of the hub passes a token or the secret (the
/// `--log-format` section of docs/OPERATIONS.md says how that was checked); this is the second
/// line of defence, applied by ``JSONLogHandler`` and ``RedactingLogHandler`` to every message
/// and metadata value:
///
/// - a metadata value whose key names a credential (`token`, `secret`, `password`,
///   `authorization`, `cookie`, `resumeToken`, ... — any key containing one of those words,
///   case-insensitive) is replaced by `[redacted]`;
/// - inside any text, a JWT (`eyJ…` with two dots), the value of a `token=` query parameter and
///   the credentials after `Bearer ` are replaced by `[redacted]`.
public enum LogRedaction {
    /// What replaces a credential.
    public static let placeholder = "[redacted]"

    private static let sensitiveKeyWords = ["token", "secret", "password", "passwd", "authorization", "cookie",
                                            "credential", "apikey", "api_key", "private"]

    /// Whether a metadata key names a credential.
    public static func isSensitive(key: String) -> Bool {
        let lowered = key.lowercased()
        return sensitiveKeyWords.contains { lowered.contains($0) }
    }

    /// `metadata` with every credential replaced.
    public static func redact(_ metadata: Logger.Metadata) -> Logger.Metadata {
        var result = Logger.Metadata()
        for (key, value) in metadata {
            result[key] = isSensitive(key: key) ? .string(placeholder) : redact(value)
        }
        return result
    }

    private static func redact(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): return .string(scrub(text))
        case .stringConvertible(let convertible):
            let text = convertible.description
            let clean = scrub(text)
            return clean == text ? value : .string(clean)
        case .dictionary(let dictionary): return .dictionary(redact(dictionary))
        case .array(let array): return .array(array.map(redact))
        }
    }

    /// `text` with every JWT, `token=` value and bearer credential replaced by `[redacted]`.
    public static func scrub(_ text: String) -> String {
        let lowered = text.lowercased()
        guard lowered.contains("eyj") || lowered.contains("token=") || lowered.contains("bearer") else { return text }
        let bytes = Array(text.utf8)
        let lower = Array(lowered.utf8)
        guard bytes.count == lower.count else { return scrubSlow(text) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            // A JWT: eyJ…, base64url runs separated by two dots, not inside a longer word.
            if bytes[i] == UInt8(ascii: "e"), matches(bytes, i, "eyJ"), i == 0 || !isTokenByte(bytes[i - 1]) {
                var end = i
                var dots = 0
                while end < bytes.count, isTokenByte(bytes[end]) || bytes[end] == UInt8(ascii: ".") {
                    if bytes[end] == UInt8(ascii: ".") { dots += 1 }
                    end += 1
                }
                if dots >= 2 {
                    out += Array(placeholder.utf8)
                    i = end
                    continue
                }
            }
            // token=VALUE (also access_token=, resumeToken=, ...): keep the name, hide the value.
            if matches(lower, i, "token=") {
                out += bytes[i..<(i + 6)]
                var end = i + 6
                while end < bytes.count, !isValueEnd(bytes[end]) { end += 1 }
                if end > i + 6 { out += Array(placeholder.utf8) }
                i = end
                continue
            }
            // Bearer CREDENTIALS
            if matches(lower, i, "bearer "), i == 0 || !isTokenByte(bytes[i - 1]) {
                out += bytes[i..<(i + 7)]
                var end = i + 7
                while end < bytes.count, bytes[end] == UInt8(ascii: " ") { end += 1 }
                let start = end
                while end < bytes.count, !isValueEnd(bytes[end]) { end += 1 }
                if end > start { out += Array(placeholder.utf8) }
                i = end
                continue
            }
            out.append(bytes[i])
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// When lower-casing changed the byte count (rare scripts): hide the whole text if it looks
    /// like it holds a credential.
    private static func scrubSlow(_ text: String) -> String {
        text.contains("eyJ") || text.lowercased().contains("token=") || text.lowercased().contains("bearer ")
            ? placeholder : text
    }

    private static func matches(_ bytes: [UInt8], _ at: Int, _ pattern: StaticString) -> Bool {
        let count = pattern.utf8CodeUnitCount
        guard at + count <= bytes.count else { return false }
        return pattern.withUTF8Buffer { needle in
            for k in 0..<count where bytes[at + k] != needle[k] { return false }
            return true
        }
    }

    /// base64url alphabet.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }

    private static func isValueEnd(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "&"), UInt8(ascii: " "), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: ","),
             UInt8(ascii: ";"), UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: ">"),
             UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
            return true
        default:
            return false
        }
    }
}
