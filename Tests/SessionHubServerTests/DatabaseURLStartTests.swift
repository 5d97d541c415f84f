import Foundation
import Testing

/// `sessionhub serve --database-url`: a wrong or unreachable database fails the start at once
/// with one line naming the URL (never its password), exit 74 (issue 10, "bad input and bad weather").
@Suite("serve --database-url at start", .timeLimit(.minutes(1)))
struct DatabaseURLStartTests {
    static func serve(_ url: String) async throws -> (status: Int32, stderr: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dburl-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await BuiltExecutable("sessionhub").run(["serve", "--port", "0", "--database-url", url,
                                                                  "--node-id", "n1", "--secret-file", dir + "/secret"])
        return (result.status, result.stderr)
    }

    @Test func anUnreachableDatabaseStopsTheStartWithOneLine() async throws {
        let started = ContinuousClock.now
        let result = try await Self.serve("postgres://hub:s3cret-pw@127.0.0.1:1/sessionhub")
        #expect(result.status == 74, "\(result)")
        let critical = result.stderr.split(separator: "\n").filter { $0.contains("critical") }
        #expect(critical.count == 1, "\(result.stderr)")
        #expect(critical.first?.contains("postgres://hub:***@127.0.0.1:1/sessionhub") == true, "\(result.stderr)")
        #expect(!result.stderr.contains("s3cret-pw"), "the password never reaches the log")
        // Refused at once; the pool left to itself would retry for ever (past the suite's time
        // limit). The bound leaves room for a debug build starting on a loaded CI machine (9.3 s seen).
        #expect(ContinuousClock.now - started < .seconds(30), "fails at once, not after retries")
    }

    @Test func aURLThatIsNotPostgresIsRefused() async throws {
        let result = try await Self.serve("mysql://hub@127.0.0.1/sessionhub")
        #expect(result.status == 74, "\(result)")
        #expect(result.stderr.contains("postgres://user@host:5432/database"), "\(result.stderr)")
    }
}
