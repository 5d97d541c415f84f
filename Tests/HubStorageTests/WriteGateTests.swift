@testable import HubStoragePostgres
import Synchronization
import Testing

/// The gate that lets a node write a bounded number of ended sessions at once.
@Suite("Write gate")
struct WriteGateTests {
    /// Bodies that stay inside the gate until the test lets each go.
    final class HeldBodies: Sendable {
        private let held = Mutex<[Int: CheckedContinuation<Void, Never>]>([:])
        private let order = Mutex<[Int]>([])

        /// Callers that have entered, in order.
        var entered: [Int] { order.withLock { $0 } }

        func body(_ caller: Int) async -> Int {
            await withCheckedContinuation { continuation in
                held.withLock { $0[caller] = continuation }
                order.withLock { $0.append(caller) }
            }
            return caller
        }

        /// Lets `caller` out once it is inside (false if it did not get in within a few seconds).
        func release(_ caller: Int) async -> Bool {
            for _ in 0..<5_000 {
                if let continuation = held.withLock({ $0.removeValue(forKey: caller) }) {
                    continuation.resume()
                    return true
                }
                try? await Task.sleep(for: .milliseconds(1))
            }
            return false
        }
    }

    /// Waits (bounded) until `condition` holds.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<5_000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return condition()
    }

    /// How many are inside, and the most there ever were.
    final class Counts: Sendable {
        private let state = Mutex<(inside: Int, most: Int, entries: Int)>((0, 0, 0))
        var most: Int { state.withLock { $0.most } }
        var entries: Int { state.withLock { $0.entries } }
        func enter() {
            state.withLock { $0.inside += 1; $0.entries += 1; $0.most = max($0.most, $0.inside) }
        }
        func leave() { state.withLock { $0.inside -= 1 } }
    }

    @Test("No more than the limit are inside at once; the others go in as places free up, first come first served")
    func admitsUpToTheLimitInOrder() async {
        let gate = WriteGate(limit: 2)
        let bodies = HeldBodies()
        await withTaskGroup(of: Int.self) { group in
            // Callers arrive one after another: 0 and 1 go in, 2…5 wait in that order.
            for caller in 0..<6 {
                group.addTask { await gate.run { await bodies.body(caller) } }
                let arrived = await Self.eventually { gate.running + gate.waiting == caller + 1 }
                #expect(arrived)
            }
            #expect(await Self.eventually { bodies.entered == [0, 1] })
            #expect(gate.running == 2)
            #expect(gate.waiting == 4)
            // Each one let out makes room for exactly the next in line.
            #expect(await bodies.release(1))
            #expect(await Self.eventually { bodies.entered == [0, 1, 2] })
            #expect(gate.running == 2)
            #expect(await bodies.release(0))
            #expect(await Self.eventually { bodies.entered == [0, 1, 2, 3] })
            for caller in 2..<6 { #expect(await bodies.release(caller)) }
            var finished: [Int] = []
            for await caller in group { finished.append(caller) }
            #expect(finished.sorted() == Array(0..<6))
        }
        #expect(bodies.entered == Array(0..<6))
        #expect(gate.running == 0)
        #expect(gate.waiting == 0)
    }

    @Test("A body that throws leaves its place to the next caller")
    func aThrowingBodyFreesItsPlace() async {
        struct Failed: Error {}
        let gate = WriteGate(limit: 1)
        await #expect(throws: Failed.self) { try await gate.run { throw Failed() } }
        #expect(gate.running == 0)
        let value = await gate.run { 7 }
        #expect(value == 7)
        #expect(gate.running == 0)
    }

    @Test("Many callers at once all get through, never more than the limit inside")
    func manyCallers() async {
        let gate = WriteGate(limit: 3)
        let counts = Counts()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    await gate.run {
                        counts.enter()
                        await Task.yield()
                        counts.leave()
                    }
                }
            }
        }
        #expect(counts.most <= 3)
        #expect(counts.most >= 1)
        #expect(counts.entries == 200)
        #expect(gate.running == 0)
        #expect(gate.waiting == 0)
    }
}
