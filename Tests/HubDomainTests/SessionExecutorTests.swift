import Dispatch
import HubDomain
import Synchronization
import Testing

/// Sessions run where ``HubPorts/executors`` places them: near their first member's link.
@Suite("Session executors")
struct SessionExecutorTests {
    /// Serial queue executors that count the jobs they run and remember which links asked.
    final class CountingExecutors: SessionExecutors {
        final class Executor: SerialExecutor {
            let queue = DispatchQueue(label: "test.session")
            let jobs = Atomic<Int>(0)

            /// Runs the job as this executor (not as another one it forwards to): the runtime checks,
            /// in a session's closures, that they run on the session's own executor.
            func enqueue(_ job: consuming ExecutorJob) {
                jobs.add(1, ordering: .relaxed)
                let job = UnownedJob(job)
                queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
            }

            func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }
        }

        let made = Mutex<[(linkId: UInt64?, executor: Executor)]>([])

        func executor(near link: (any ParticipantLink)?) -> any SerialExecutor {
            let executor = Executor()
            made.withLock { $0.append((link?.linkId, executor)) }
            return executor
        }
    }

    @Test func aSessionRunsOnTheExecutorPickedNearItsCreatorsLink() async throws {
        let executors = CountingExecutors()
        let h = Harness(executors: executors)
        let members = try await h.group(2)
        let made = executors.made.withLock { $0 }
        #expect(made.count == 1, "one session, one executor")
        #expect(made.first?.linkId == members[0].link.linkId, "placed near the host's link")
        let before = try #require(made.first).executor.jobs.load(ordering: .relaxed)
        try await members[1].say("hola")
        #expect(members[0].link.lines.map(\.textNative) == ["hola"])
        let after = try #require(made.first).executor.jobs.load(ordering: .relaxed)
        #expect(after > before, "the say ran on the session's executor")
    }

    @Test func aRecoveredSessionGetsAnExecutorWithoutALink() async throws {
        let executors = CountingExecutors()
        let h = Harness(executors: executors)
        let alice = try await h.host()
        try await alice.say("antes")
        let restarted = h.restarted()
        let report = try await restarted.recover(from: h.journal)
        #expect(report.resumable == 1)
        let made = executors.made.withLock { $0 }
        #expect(made.count == 2)
        #expect(made.last?.linkId == nil)
    }
}
