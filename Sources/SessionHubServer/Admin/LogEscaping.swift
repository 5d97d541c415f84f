import Logging

/// Keeps every log call on one line and free of terminal escapes: control characters in a
/// message or a metadata value (a user id, a display name, a close reason — anything a client
/// chose) are written as escapes, so a forged log line or a raw ANSI sequence cannot reach the
/// log. Applied by ``RedactingLogHandler`` (the text format) after ``LogRedaction``;
/// ``JSONLogHandler`` escapes the same characters in its JSON strings.
///
/// | character | written as |
/// |---|---|
/// | `\` | `\\` (so an escape in the log is never ambiguous) |
/// | line feed, carriage return, tab | `\n`, `\r`, `\t` |
/// | other C0 (U+0000–U+001F), DEL (U+007F), C1 (U+0080–U+009F), U+2028, U+2029 | `\u{1B}` (hex, upper case) |
public enum LogEscaping {
    /// Whether `scalar` must not reach a log line as it is.
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
    }

    /// `text` with every control character (and `\`) escaped.
    public static func escape(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0) || $0 == "\\" }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out.append(contentsOf: #"\\"#.unicodeScalars)
            case "\n": out.append(contentsOf: #"\n"#.unicodeScalars)
            case "\r": out.append(contentsOf: #"\r"#.unicodeScalars)
            case "\t": out.append(contentsOf: #"\t"#.unicodeScalars)
            case _ where needsEscape(scalar):
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// `metadata` with every key and string escaped (nested values too).
    public static func escape(_ metadata: Logger.Metadata) -> Logger.Metadata {
        var result = Logger.Metadata()
        for (key, value) in metadata { result[escape(key)] = escape(value) }
        return result
    }

    private static func escape(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): return .string(escape(text))
        case .stringConvertible(let convertible):
            let text = convertible.description
            let clean = escape(text)
            return clean == text ? value : .string(clean)
        case .dictionary(let dictionary): return .dictionary(escape(dictionary))
        case .array(let array): return .array(array.map(escape))
        }
    }
}
