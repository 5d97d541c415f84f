#if canImport(Glibc)
import Glibc
#endif
import HubDomain
import NIOCore
import NIOPosix
@testable import SessionHubServer
import Testing

/// A connection's requests and the sessions it creates run on event loops (issue 11: no thread
/// switch between a request, its session and the writes to members on the same loop).
@Suite("Event loop executors")
struct EventLoopExecutorsTests {
    /// An actor on a given executor, as ``LiveSession`` is.
    actor OnExecutor {
        nonisolated let executor: any SerialExecutor
        init(_ executor: any SerialExecutor) { self.executor = executor }
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
        func isOn(_ loop: any EventLoop) -> Bool { loop.inEventLoop }
    }

    @Test func aTaskPreferringALoopsExecutorRunsOnThatLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loops = Array(group.makeIterator())
        for loop in loops {
            let onLoop = await Task(executorPreference: EventLoopTaskExecutor.on(loop)) {
                // Also after a suspension: the task comes back to its loop.
                await Task.yield()
                return loop.inEventLoop
            }.value
            #expect(onLoop)
            #expect(EventLoopTaskExecutor.on(loop) === EventLoopTaskExecutor.on(loop), "one per loop")
        }
        try await group.shutdownGracefully()
    }

    @Test func aSessionWithoutAMemberRunsOnOneOfTheGroupsLoops() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loops = Array(group.makeIterator())
        let executors = EventLoopSessionExecutors(group: group)
        for _ in 0..<4 {
            let actor = OnExecutor(executors.executor(near: nil))
            var on = 0
            for loop in loops where await actor.isOn(loop) { on += 1 }
            #expect(on == 1, "runs on exactly one loop of the group")
        }
        try await group.shutdownGracefully()
    }
}

/// Storage work leaves the loops (``OffTheLoops``), even from a task that prefers a loop.
@Suite("Off the loops")
struct OffTheLoopsTests {
    nonisolated static func onLoop(_ loop: any EventLoop) async -> Bool { loop.inEventLoop }

    @Test func storageWorkRunsOffTheLoopOfTheRequest() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let (before, inside, after) = await Task(executorPreference: EventLoopTaskExecutor.on(loop)) {
            let before = await Self.onLoop(loop)
            let inside = await OffTheLoops.run { await Self.onLoop(loop) }
            let after = await Self.onLoop(loop)
            return (before, inside, after)
        }.value
        #expect(before, "a request task runs on its loop")
        #expect(!inside, "storage work runs off it")
        #expect(after, "and the request comes back to its loop")
        try await group.shutdownGracefully()
    }

    #if os(Linux)
    @Test func theStorageThreadYieldsTheCoreToTheLoops() async {
        let policy = await OffTheLoops.run { sched_getscheduler(0) }   // 0: the calling thread
        let here = sched_getscheduler(0)
        #expect(policy == OffTheLoops.idlePolicy, "the storage thread runs under SCHED_IDLE")
        #expect(here != OffTheLoops.idlePolicy, "the test's own thread does not")
    }
    #endif
}
