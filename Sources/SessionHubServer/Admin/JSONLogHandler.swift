import Foundation
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A swift-log handler that writes one JSON object per line (`sessionhub serve --log-format
/// json`), for log shippers that read JSON lines (journald + Vector/Fluent Bit, Loki, ...):
///
/// ```json
/// {"timestamp":"2026-11-23T14:02:11.045Z","level":"info","label":"sessionhub","message":"hub ready","metadata":{"scenarios":"10"},"source":"SessionHubServer"}
/// ```
///
/// Keys always come in that order; `metadata` is an object (empty when there is none), nested
/// metadata stays nested, and an attached error comes as `"error"`. Every message and metadata
/// value goes through ``LogRedaction`` first, so a bearer token, a JWT or a `token=` query that
/// slipped into a log call is written as `[redacted]`. Every control character (C0, DEL, C1,
/// U+2028, U+2029) in any string is a JSON `\u` escape, so a line never breaks and never carries a
/// terminal escape (``LogEscaping``).
public struct JSONLogHandler: LogHandler {
    /// Where the lines go.
    public struct Sink: Sendable {
        let write: @Sendable (String) -> Void

        /// A sink that hands each line (without its newline) to `write`.
        public init(_ write: @escaping @Sendable (String) -> Void) {
            self.write = write
        }

        /// Standard error, one `write` per line under a process-wide lock (lines never interleave).
        public static let standardError = Sink { line in
            StandardErrorWriter.shared.write(line)
        }

        /// Standard output, like ``standardError``.
        public static let standardOutput = Sink { line in
            StandardErrorWriter.stdout.write(line)
        }
    }

    /// The logger's label.
    public let label: String
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let sink: Sink

    /// A handler for `label`, writing lines at `level` and above to `sink`.
    public init(label: String, level: Logger.Level = .info, sink: Sink = .standardError,
                metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.logLevel = level
        self.sink = sink
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        let line = Self.line(date: Date(), level: event.level, label: label, message: event.message.description,
                             metadata: merged, source: event.source, error: event.error.map { String(describing: $0) })
        sink.write(line)
    }

    /// One log line (no trailing newline).
    public static func line(date: Date, level: Logger.Level, label: String, message: String,
                            metadata: Logger.Metadata, source: String?, error: String? = nil) -> String {
        var out = "{\"timestamp\":\""
        out += timestamp(date)
        out += "\",\"level\":"
        appendString(level.rawValue, to: &out)
        out += ",\"label\":"
        appendString(label, to: &out)
        out += ",\"message\":"
        appendString(LogRedaction.scrub(message), to: &out)
        out += ",\"metadata\":"
        appendMetadata(LogRedaction.redact(metadata), to: &out)
        if let source {
            out += ",\"source\":"
            appendString(source, to: &out)
        }
        if let error {
            out += ",\"error\":"
            appendString(LogRedaction.scrub(error), to: &out)
        }
        out += "}"
        return out
    }

    /// RFC 3339 in UTC with milliseconds: `2026-11-23T14:02:11.045Z`.
    public static func timestamp(_ date: Date) -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let days = millis >= 0 ? millis / 86_400_000 : (millis - 86_399_999) / 86_400_000
        let inDay = millis - days * 86_400_000
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(inDay / 3_600_000, 2)):"
            + "\(pad(inDay / 60_000 % 60, 2)):\(pad(inDay / 1000 % 60, 2)).\(pad(inDay % 1000, 3))Z"
    }

    private static func appendMetadata(_ metadata: Logger.Metadata, to out: inout String) {
        out += "{"
        var first = true
        for key in metadata.keys.sorted() {
            guard let value = metadata[key] else { continue }
            if !first { out += "," }
            first = false
            appendString(key, to: &out)
            out += ":"
            appendValue(value, to: &out)
        }
        out += "}"
    }

    private static func appendValue(_ value: Logger.Metadata.Value, to out: inout String) {
        switch value {
        case .string(let text): appendString(text, to: &out)
        case .stringConvertible(let convertible): appendString(convertible.description, to: &out)
        case .dictionary(let dictionary): appendMetadata(dictionary, to: &out)
        case .array(let array):
            out += "["
            for (index, element) in array.enumerated() {
                if index > 0 { out += "," }
                appendValue(element, to: &out)
            }
            out += "]"
        }
    }

    /// Appends `text` as a JSON string literal, every character of ``LogEscaping/needsEscape(_:)``
    /// escaped.
    static func appendString(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where LogEscaping.needsEscape(scalar):
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

/// Writes whole lines to a standard stream under one lock.
private final class StandardErrorWriter: Sendable {
    static let shared = StandardErrorWriter(descriptor: 2)
    static let stdout = StandardErrorWriter(descriptor: 1)

    private let descriptor: Int32
    private let lock = Mutex(())

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    func write(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        lock.withLock { _ in
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { raw in
                    systemWrite(descriptor, raw.baseAddress, raw.count)
                }
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
        }
    }
}

#if canImport(Glibc)
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
private let systemWrite = Darwin.write
#endif
