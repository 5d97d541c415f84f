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
    /// Whether each commit the runner ran was on its loop.
    final class Record: Sendable {
        let onLoop = Mutex<[Bool]>([])
    }

    /// ``EventLoopCommitRunner``, noting where each piece of work runs.
    struct Watched: SQLiteCommitRunner {
        let inner: EventLoopCommitRunner
        let record: Record

        func run(_ work: @escaping @Sendable () -> Void) {
            let (loop, record) = (inner.eventLoop, record)
            inner.run { record.onLoop.withLock { $0.append(loop.inEventLoop) }; work() }
        }

        func run(atUptimeNanoseconds deadline: UInt64, _ work: @escaping @Sendable () -> Void) {
            let (loop, record) = (inner.eventLoop, record)
            inner.run(atUptimeNanoseconds: deadline) { record.onLoop.withLock { $0.append(loop.inEventLoop) }; work() }
        }
    }

    static func entry(_ seq: Int) -> JournalEntry {
        let line = DialogLine(id: "l\(seq)", speakerId: "ana", roleName: "Barista", textNative: "Un café \(seq)",
                              textTranslated: "A coffee \(seq)", timestamp: Int64(1_000 + seq))
        return JournalEntry(sessionId: "s1", seq: seq, timestamp: Int64(1_000 + seq), event: .line(line, ref: "q\(seq)"))
    }

    /// A journal in a fresh file committing on the one loop of a fresh group, both closed after `body`.
    static func withJournal(commitInterval: Duration = .zero,
                            _ body: (SQLiteJournal, any EventLoop, Record) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("commit-runner-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let record = Record()
        let journal = try SQLiteJournal(path: dir + "/journal.sqlite", commitInterval: commitInterval,
                                        runner: Watched(inner: EventLoopCommitRunner(eventLoop: loop), record: record))
        do {
            try await body(journal, loop, record)
        } catch {
            journal.close()
            try await group.shutdownGracefully()
            throw error
        }
        journal.close()
        try await group.shutdownGracefully()
    }

    @Test("An append from the loop commits on the loop, durably, and returns to the loop")
    func appendCommitsOnTheLoop() async throws {
        try await Self.withJournal { journal, loop, record in
            let header = SessionHeader(sessionId: "s1", scenarioId: "ordering-coffee", joinCode: nil, maxPlayers: 4,
                                       startedAt: 1_000)
            let back = try await Task(executorPreference: EventLoopTaskExecutor.on(loop)) {
                try await journal.opened(header)
                try await journal.append(Self.entry(1))
                try await journal.append(contentsOf: [Self.entry(2), Self.entry(3)])
                return loop.inEventLoop
            }.value
            #expect(back, "the appending task is back on its loop")
            let commits = record.onLoop.withLock { $0 }
            #expect(commits.count == 3 && commits.allSatisfy { $0 }, "every commit ran on the loop: \(commits)")
            #expect(journal.commitCount == 3)
            #expect(try journal.entries(sessionId: "s1").map(\.seq) == [1, 2, 3])
            #expect(try await journal.openSessions().map(\.sessionId) == ["s1"])
        }
    }

    @Test("With a commit interval the next commit is scheduled on the loop, no sooner than the interval")
    func intervalScheduledOnTheLoop() async throws {
        try await Self.withJournal(commitInterval: .milliseconds(40)) { journal, loop, record in
            let elapsed = try await Task(executorPreference: EventLoopTaskExecutor.on(loop)) {
                try await journal.append(Self.entry(1))  // the first commit starts at once
                let start = ContinuousClock.now
                try await journal.append(Self.entry(2))  // waits for the interval since the first
                return ContinuousClock.now - start
            }.value
            #expect(elapsed >= .milliseconds(25), "the second commit waited for the interval: \(elapsed)")
            #expect(record.onLoop.withLock { $0 } == [true, true])
            #expect(try journal.entries(sessionId: "s1").map(\.seq) == [1, 2])
        }
    }

    @Test("Appends after close throw, and close commits what was queued")
    func closeCommitsAndRefuses() async throws {
        try await Self.withJournal { journal, loop, _ in
            try await journal.append(Self.entry(1))
            journal.close()
            await #expect(throws: StorageError.self) { try await journal.append(Self.entry(2)) }
            _ = loop
        }
    }
}
