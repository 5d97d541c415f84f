import Dispatch
import Foundation
import HubDomain
import HubStorage
import NIOCore
import NIOPosix
@testable import SessionHubServer
import Synchronization
import Testing

/// With several event loops the log journal commits on the loop of the append that scheduled
/// the commit (issue 11: no hop to the journal's thread and back for a session's line).
@Suite("Journal commits on the appender's loop")
struct AppenderLoopCommitRunnerTests {
    /// Counts the work the fallback was given.
    final class CountingFallback: SQLiteCommitRunner {
        let count = Mutex(0)
        func run(atUptimeNanoseconds deadline: UInt64, _ work: @escaping @Sendable () -> Void) {
            count.withLock { $0 += 1 }
            DispatchQueue.global().async(execute: work)
        }
    }

    /// The thread work ran on: which of `loops` it was, or nil for none of them.
    static func ran(on runner: AppenderLoopCommitRunner, from loop: (any EventLoop)?, deadline: UInt64,
                    loops: [any EventLoop]) async -> Int? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int?, Never>) in
            let schedule: @Sendable () -> Void = {
                runner.run(atUptimeNanoseconds: deadline) {
                    continuation.resume(returning: loops.firstIndex(where: { $0.inEventLoop }))
                }
            }
            if let loop { loop.execute(schedule) } else { DispatchQueue.global().async(execute: schedule) }
        }
    }

    @Test func commitsRunOnTheSchedulingLoopAndElsewhereOnTheFallback() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 3)
        let all = Array(group.makeIterator())
        let hub = Array(all.prefix(2))  // the third loop is not the hub's
        let fallback = CountingFallback()
        let runner = AppenderLoopCommitRunner(loops: hub, fallback: fallback)
        let now = DispatchTime.now().uptimeNanoseconds
        for (index, loop) in hub.enumerated() {
            #expect(await Self.ran(on: runner, from: loop, deadline: 0, loops: all) == index)
            // A deadline ahead is kept on the same loop.
            #expect(await Self.ran(on: runner, from: loop, deadline: now + 2_000_000, loops: all) == index)
        }
        #expect(fallback.count.withLock { $0 } == 0)
        #expect(await Self.ran(on: runner, from: nil, deadline: 0, loops: all) == nil)
        #expect(await Self.ran(on: runner, from: all[2], deadline: 0, loops: all) == nil)
        #expect(fallback.count.withLock { $0 } == 2)
        try await group.shutdownGracefully()
    }

    /// Two loops appending to one log journal at once: every append is written once, and each
    /// session's entries come back in order.
    @Test func twoLoopsAppendingToOneLogKeepEverySessionsOrder() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("appender-loops-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loops = Array(group.makeIterator())
        let journal = try LogJournal(directory: dir, commitInterval: .milliseconds(1),
                                     runner: AppenderLoopCommitRunner(loops: loops, fallback: DispatchCommitRunner()))
        let sessions = ["a", "b", "c", "d"]
        for id in sessions {
            try await journal.opened(SessionHeader(sessionId: id, scenarioId: "ordering-coffee", joinCode: nil, maxPlayers: 4,
                                                   startedAt: 1_000))
        }
        let perSession = 40
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for (index, id) in sessions.enumerated() {
                // Each session appends from its own loop, one entry after the other, as a session does.
                tasks.addTask(executorPreference: EventLoopTaskExecutor.on(loops[index % 2])) {
                    for seq in 1...perSession {
                        let line = DialogLine(id: "\(id)\(seq)", speakerId: "ana", roleName: "Barista", textNative: "Un café",
                                              textTranslated: "A coffee", timestamp: Int64(seq))
                        try await journal.append(JournalEntry(sessionId: id, seq: seq, timestamp: Int64(seq),
                                                              event: .line(line, ref: nil)))
                    }
                }
            }
            try await tasks.waitForAll()
        }
        let entries = try await journal.entries(sessionIds: sessions)
        for id in sessions {
            #expect(entries[id, default: []].map(\.seq) == Array(1...perSession), "session \(id)")
        }
        journal.close()
        try await group.shutdownGracefully()
    }
}
