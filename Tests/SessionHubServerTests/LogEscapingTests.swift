import Foundation
import Logging
import Synchronization
import Testing
@testable import SessionHubServer

/// Log injection: whatever a client chose (a user id, a display name, a close reason) cannot
/// break a log line or carry a terminal escape, in either log format.
@Suite struct LogEscapingTests {
    /// What a hostile `sub`/`name` could hold: a forged second line, ANSI and OSC escapes,
    /// a C1 CSI, DEL, a bell, a Unicode line separator.
    static let hostile = "ana\nINFO sessionhub: [SessionHubServer] user=admin logged in\r\u{1B}[2J\u{1B}]0;pwned\u{7}\u{9B}31m\u{7F}\u{85}\u{2028}end"

    /// Whether `line` holds a character no log line may hold as it is.
    static func hasRawControl(_ line: Substring) -> Bool {
        line.unicodeScalars.contains { LogEscaping.needsEscape($0) }
    }

    @Test func escapingCoversC0DelC1AndLineSeparators() {
        #expect(LogEscaping.escape("plain text, «ünïcödé» 🌍") == "plain text, «ünïcödé» 🌍")
        #expect(LogEscaping.escape("a\nb\rc\td") == #"a\nb\rc\td"#)
        #expect(LogEscaping.escape("\u{1B}[31m") == #"\u{1B}[31m"#)
        #expect(LogEscaping.escape("\u{0}\u{7F}\u{80}\u{9B}\u{9F}\u{A0}") == #"\u{0}\u{7F}\u{80}\u{9B}\u{9F}"# + "\u{A0}")
        #expect(LogEscaping.escape("\u{2028}\u{2029}") == #"\u{2028}\u{2029}"#)
        #expect(LogEscaping.escape(#"a\nb"#) == #"a\\nb"#, "a backslash is escaped so an escape is never ambiguous")
        let metadata = LogEscaping.escape(["k\n": "v\u{1B}", "list": ["x\ny"], "nested": ["in": "\u{9B}"]])
        #expect(metadata[#"k\n"#] == .string(#"v\u{1B}"#))
        #expect(metadata["list"] == .array([.string(#"x\ny"#)]))
        #expect(metadata["nested"] == .dictionary(["in": .string(#"\u{9B}"#)]))
    }

    @Test func theJSONFormatWritesOneLineWithoutRawControls() throws {
        let lines = Mutex<[String]>([])
        let sink = JSONLogHandler.Sink { line in lines.withLock { $0.append(line) } }
        let logger = Logger(label: "t") { JSONLogHandler(label: $0, level: .info, sink: sink) }
        struct Failure: Error, CustomStringConvertible { var description: String }
        logger.info("closing connection \(Self.hostile)", error: Failure(description: Self.hostile),
                    metadata: ["user": "\(Self.hostile)", "names": [.string(Self.hostile)], "nested": ["name": "\(Self.hostile)"]])
        let written = lines.withLock { $0 }
        #expect(written.count == 1)
        let line = try #require(written.first)
        #expect(!line.contains("\n") && !Self.hasRawControl(line[...]), "\(line.debugDescription)")
        // Still valid JSON that gives the text back exactly.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["message"] as? String == "closing connection \(Self.hostile)")
        #expect(object["error"] as? String == Self.hostile)
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata["user"] as? String == Self.hostile)
        #expect(metadata["names"] as? [String] == [Self.hostile])
        #expect((metadata["nested"] as? [String: Any])?["name"] as? String == Self.hostile)
    }

    /// The handler `sessionhub serve --log-format text` bootstraps: swift-log's
    /// `StreamLogHandler` inside ``RedactingLogHandler``.
    @Test func theTextFormatWritesOneLineWithoutRawControls() throws {
        final class Output: TextOutputStream, Sendable {
            let text = Mutex("")
            func write(_ string: String) { text.withLock { $0 += string } }
        }
        struct Stream: TextOutputStream, Sendable {
            let output: Output
            mutating func write(_ string: String) { output.write(string) }
        }
        let output = Output()
        let provider = Logger.MetadataProvider { ["trace": "\(Self.hostile)"] }
        var logger = Logger(label: "sessionhub") { label in
            var handler = RedactingLogHandler(StreamLogHandler(label: label, stream: Stream(output: output), metadataProvider: provider))
            handler.logLevel = .info
            return handler
        }
        logger[metadataKey: "user"] = "\(Self.hostile)"
        struct Failure: Error, CustomStringConvertible { var description: String }
        logger.info("closing connection \(Self.hostile)", error: Failure(description: Self.hostile),
                    metadata: ["reason": "\(Self.hostile)", "names": [.string(Self.hostile)]])
        logger.info("second")
        let text = output.text.withLock { $0 }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines[2].isEmpty, "two log calls, two lines: \(text.debugDescription)")
        for line in lines { #expect(!Self.hasRawControl(line), "\(line.debugDescription)") }
        let first = String(lines[0])
        let escaped = LogEscaping.escape(Self.hostile)
        #expect(first.contains("closing connection \(escaped)"))
        #expect(first.contains("user=\(escaped)"))
        #expect(first.contains("reason=\(escaped)"))
        #expect(first.contains("trace=\(escaped)"))
        #expect(first.contains("error.message=\(escaped)"))
        #expect(lines[1].hasSuffix("second"))
        // The redaction still applies, before the escaping.
        logger.info("token=abc\u{1B}def")
        #expect(output.text.withLock { $0 }.contains("token=[redacted]"))
    }
}
