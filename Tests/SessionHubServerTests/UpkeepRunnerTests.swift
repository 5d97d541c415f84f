@testable import SessionHubServer
import Synchronization
import Testing

/// The storage's upkeep runs one pass at a time, and shutdown waits for the pass in flight
/// before the storage closes (a sweep cut in half by `close()` logged "journal upkeep failed").
@Suite("Storage upkeep")
struct UpkeepRunnerTests {
    /// A pass that holds until released, counting starts and ends.
    final class Gate: Sendable {
        let starts = Atomic(0)
        let ends = Atomic(0)
        private let release = Mutex<[CheckedContinuation<Void, Never>]>([])
        private let opened = Atomic(false)

        var startCount: Int { starts.load(ordering: .relaxed) }
        var endCount: Int { ends.load(ordering: .relaxed) }

        func pass() async {
            starts.add(1, ordering: .relaxed)
            if !opened.load(ordering: .acquiring) {
                await withCheckedContinuation { continuation in
                    let waiting = release.withLock { waiters -> Bool in
                        if opened.load(ordering: .acquiring) { return false }
                        waiters.append(continuation)
                        return true
                    }
                    if !waiting { continuation.resume() }
                }
            }
            ends.add(1, ordering: .relaxed)
        }

        func open() {
            let waiters = release.withLock { waiters -> [CheckedContinuation<Void, Never>] in
                opened.store(true, ordering: .releasing)
                defer { waiters.removeAll() }
                return waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    private static func eventually(_ condition: () -> Bool) async {
        for _ in 0..<2_000 {
            if condition() { return }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    @Test("a pass due while one runs is skipped, and the next one starts once it ended")
    func onePassAtATime() async {
        let gate = Gate()
        let upkeep = UpkeepRunner { await gate.pass() }
        #expect(upkeep.startIfIdle())
        await Self.eventually { gate.startCount == 1 }
        #expect(!upkeep.startIfIdle(), "a second pass started beside the first")
        #expect(gate.startCount == 1)
        gate.open()
        await Self.eventually { upkeep.startIfIdle() }
        await Self.eventually { gate.endCount == 2 }
        #expect(gate.startCount == 2)
        #expect(gate.endCount == 2)
        await upkeep.stop()
    }

    @Test("stop waits for the pass in flight and starts none after")
    func stopWaits() async {
        let gate = Gate()
        let upkeep = UpkeepRunner { await gate.pass() }
        #expect(upkeep.startIfIdle())
        await Self.eventually { gate.startCount == 1 }
        let stopped = Atomic(false)
        let stopping = Task {
            await upkeep.stop()
            stopped.store(true, ordering: .releasing)
        }
        try? await Task.sleep(for: .milliseconds(50))
        let returnedEarly = stopped.load(ordering: .acquiring)
        #expect(!returnedEarly, "stop returned while the pass was still running")
        gate.open()
        await stopping.value
        #expect(gate.endCount == 1)
        #expect(!upkeep.startIfIdle(), "a pass started after stop")
        await upkeep.runNow()
        #expect(gate.startCount == 1)
    }

    @Test("runNow returns once its pass is done")
    func runNowWaits() async {
        let gate = Gate()
        gate.open()
        let upkeep = UpkeepRunner { await gate.pass() }
        await upkeep.runNow()
        #expect(gate.endCount == 1)
        await upkeep.runNow()
        #expect(gate.endCount == 2)
        await upkeep.stop()
    }
}
