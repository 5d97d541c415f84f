import Foundation
import HubDomain
import HubStorage
import NIOCore
import NIOPosix
@testable import SessionHubServer
import Synchronization
import Testing

/// With one event loop the SQLite journal commits on it (issue 11: no thread switch between a
/// session's append, its commit and the session's wake-up).
@Suite("Journal commits on the event loop")
struct EventLoopCommitRunnerTests {
    /// Where and when each commit the runner ran started.
    final class Record: Sendable {
        let starts = Mutex<[(onLoop: Bool, at: ContinuousClock.Instant)]>([])
    }

    /// ``EventLoopCommitRunner``, noting where and when each piece of work starts.
    struct Watched: SQLiteCommitRunner {
        let inner: EventLoopCommitRunner
        let record: Record

        func run(atUptimeNanoseconds deadline: UInt64, _ work: @escaping @Sendable () -> Void) {
            let (loop, record) = (inner.eventLoop, record)
            inner.run(atUptimeNanoseconds: deadline) {
                record.starts.withLock { $0.append((loop.inEventLoop, ContinuousClock.now)) }
                work()
            }
        }
    }

    static let header = SessionHeader(sessionId: "s1", scenarioId: "ordering-coffee", joinCode: nil, maxPlayers: 4,
                                      startedAt: 1_000)

    static func entry(_ seq: Int) -> JournalEntry {
        let line = DialogLine(id: "l\(seq)", speakerId: "ana", roleName: "Barista", textNative: "Un café \(seq)",
                              textTranslated: "A coffee \(seq)", timestamp: Int64(1_000 + seq))
        return JournalEntry(sessionId: "s1", seq: seq, timestamp: Int64(1_000 + seq), event: .line(line, ref: "q\(seq)"))
    }

    /// A journal in a fresh file committing on the one loop of a fresh group, both closed after
    /// `body`; `body` gets the journal's path too.
    static func withJournal(commitInterval: Duration = .zero,
                            _ body: (SQLiteJournal, String, any EventLoop, Record) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("commit-runner-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let record = Record()
        let path = dir + "/journal.sqlite"
        let journal = try SQLiteJournal(path: path, commitInterval: commitInterval,
                                        runner: Watched(inner: EventLoopCommitRunner(eventLoop: loop), record: record))
        do {
            try await body(journal, path, loop, record)
        } catch {
            journal.close()
            try await group.shutdownGracefully()
            throw error
        }
        journal.close()
        try await group.shutdownGracefully()
    }

    @Test("Appends from the loop commit on the loop, durably")
    func appendCommitsOnTheLoop() async throws {
        try await Self.withJournal { journal, _, loop, record in
            try await Task(executorPreference: EventLoopTaskExecutor.on(loop)) {
                try await journal.opened(Self.header)
                try await journal.append(Self.entry(1))
                try await journal.append(contentsOf: [Self.entry(2), Self.entry(3)])
            }.value
            let starts = record.starts.withLock { $0.map(\.onLoop) }
            #expect(starts == [true, true, true], "every commit ran on the loop")
            #expect(journal.commitCount == 3)
            #expect(try journal.entries(sessionId: "s1").map(\.seq) == [1, 2, 3])
            #expect(try await journal.openSessions().map(\.sessionId) == ["s1"])
        }
    }

    @Test("With a commit interval each next commit is scheduled on the loop, no sooner than the interval")
    func intervalScheduledOnTheLoop() async throws {
        try await Self.withJournal(commitInterval: .milliseconds(40)) { journal, _, loop, record in
            try await Task(executorPreference: EventLoopTaskExecutor.on(loop)) {
                try await journal.opened(Self.header)  // the first commit starts at once
                try await journal.append(Self.entry(1))  // each later one waits for the interval
                try await journal.append(Self.entry(2))
            }.value
            let starts = record.starts.withLock { $0 }
            #expect(starts.map(\.onLoop) == [true, true, true])
            // A commit is due `commitInterval` after the previous one began, which was after its work started.
            for (earlier, later) in zip(starts, starts.dropFirst()) {
                #expect(later.at - earlier.at >= .milliseconds(40), "commits \(later.at - earlier.at) apart")
            }
            #expect(try journal.entries(sessionId: "s1").map(\.seq) == [1, 2])
        }
    }

    @Test("close commits, on its caller's thread, what waits for the loop; later appends throw")
    func closeCommitsWhatIsQueued() async throws {
        try await Self.withJournal(commitInterval: .seconds(30)) { journal, path, loop, record in
            try await journal.opened(Self.header)  // commits at once; the next is due in 30 s
            let waiting = Task(executorPreference: EventLoopTaskExecutor.on(loop)) {
                try await journal.append(Self.entry(1))
            }
            while journal.pendingCount == 0 { try await Task.sleep(for: .milliseconds(1)) }
            journal.close()
            try await waiting.value  // durable: close committed it
            await #expect(throws: StorageError.self) { try await journal.append(Self.entry(2)) }
            #expect(record.starts.withLock { $0.count } == 1, "only the header's commit ran on the loop")
            let reopened = try SQLiteJournal(path: path)
            defer { reopened.close() }
            #expect(try reopened.entries(sessionId: "s1").map(\.seq) == [1])
        }
    }

    @Test("Exclusive work from another thread interleaves with the loop's commits without losing an append")
    func exclusiveWorkBesideLoopCommits() async throws {
        try await Self.withJournal { journal, _, loop, _ in
            let others = (0..<20).map { SessionHeader(sessionId: "other-\($0)", scenarioId: "ordering-coffee", joinCode: nil,
                                                      maxPlayers: 4, startedAt: 1_000) }
            for other in others { try await journal.opened(other) }
            async let appends: Void = Task(executorPreference: EventLoopTaskExecutor.on(loop)) {
                try await journal.opened(Self.header)
                for seq in 1...200 { try await journal.append(Self.entry(seq)) }
            }.value
            // Meanwhile, off the loop: removals and sweeps, each committing what is queued first.
            for other in others {
                try journal.remove(sessionId: other.sessionId)
                try journal.sweepEnded()
            }
            try await appends
            #expect(try journal.entries(sessionId: "s1").map(\.seq) == Array(1...200))
            #expect(try await journal.openSessions().map(\.sessionId) == ["s1"])
        }
    }
}
