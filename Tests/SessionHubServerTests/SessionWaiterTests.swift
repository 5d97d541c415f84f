import Foundation
import HubDomain
import NIOCore
import NIOPosix
import Synchronization
import Testing
@testable import SessionHubServer

/// A request that waits inside a session (for its broadcast's delivery, or for an end in
/// progress) must not miss the moment it waits for, with the session on an event loop and the
/// request coming from a connection worker, as the server runs them.
///
/// Swift runs the closure of `withCheckedContinuation` in such a session later, as a job of its
/// own, when the calling task prefers a task executor (swiftlang/swift#85668): work already
/// queued on the loop — such as the journal write finishing and delivering everything — runs in
/// between, so a waiter registered "after a check" can come after what it waits for. CI's soak
/// of 562ee94 kept a session `ending` forever that way.
@Suite("Waiting inside a session on an event loop")
struct SessionWaiterTests {
    /// A journal whose next write waits until released.
    final class HeldJournal: SessionJournal {
        private struct State {
            var holding = false
            var held: CheckedContinuation<Void, Never>?
            var heldArrived: CheckedContinuation<Void, Never>?
            var written: [Int] = []
        }
        private let state = Mutex(State())

        func holdNextWrite() { state.withLock { $0.holding = true } }

        /// Returns once the held write waits.
        func waitUntilHeld() async {
            await withCheckedContinuation { (arrived: CheckedContinuation<Void, Never>) in
                let already = state.withLock { state -> Bool in
                    if state.held != nil { return true }
                    state.heldArrived = arrived
                    return false
                }
                if already { arrived.resume() }
            }
        }

        func release() {
            state.withLock { state in
                defer { state.held = nil }
                return state.held
            }?.resume()
        }

        var written: [Int] { state.withLock { $0.written } }

        func append(_ entry: JournalEntry) async throws { try await append(contentsOf: [entry]) }

        func append(contentsOf entries: [JournalEntry]) async throws {
            if state.withLock({ $0.holding }) {
                await withCheckedContinuation { (held: CheckedContinuation<Void, Never>) in
                    let arrived = state.withLock { state -> CheckedContinuation<Void, Never>? in
                        state.holding = false
                        state.held = held
                        defer { state.heldArrived = nil }
                        return state.heldArrived
                    }
                    arrived?.resume()
                }
            }
            state.withLock { $0.written.append(contentsOf: entries.map(\.seq)) }
        }
    }

    /// A clock that runs a hook inside its next reading.
    final class HookedClock: HubClock {
        private let hook = Mutex<(@Sendable () -> Void)?>(nil)

        func now() -> Int64 {
            if let run = hook.withLock({ hook in defer { hook = nil }; return hook }) { run() }
            return Int64(Date().timeIntervalSince1970 * 1000)
        }

        func onNextReading(_ run: @escaping @Sendable () -> Void) { hook.withLock { $0 = run } }
    }

    final class Link: ParticipantLink {
        let linkId: UInt64
        private let ended = Mutex(false)
        init(_ id: UInt64) { linkId = id }
        func deliver(_ event: any EncodedEvent) {
            if (event as? PreparedBroadcast)?.type == .ended { ended.withLock { $0 = true } }
        }
        func reply(_ reply: SessionReply) {}
        func detach(_ reason: DetachReason) {}
        var sawEnded: Bool { ended.withLock { $0 } }
    }

    /// An end that starts while the session's last journal write completes must end. The write
    /// is let go from the session's own loop at each of the first few turns after the end reads
    /// the clock, so its return to the session lands in each gap between the end's steps — among
    /// them the one between "is everything delivered?" and registering the wait.
    @Test(arguments: 0..<4)
    func anEndRacingItsLastWriteEnds(turnsBeforeRelease: Int) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            try await endRacingItsLastWrite(on: group, turnsBeforeRelease: turnsBeforeRelease)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        try await group.shutdownGracefully()
    }

    private func endRacingItsLastWrite(on group: MultiThreadedEventLoopGroup, turnsBeforeRelease: Int) async throws {
        let loop = group.next()
        let catalog = try ScenarioCatalog.load()
        let scenario = try #require(catalog.scenario(id: "town-hall-meeting"))
        let journal = HeldJournal()
        let clock = HookedClock()
        let ports = HubPorts(clock: clock, encoder: FrameEventEncoder(compressor: nil), journal: journal,
                             executors: EventLoopSessionExecutors(group: group))
        let hub = Hub(catalog: catalog, configuration: HubConfiguration(), ports: ports)
        let worker = EventLoopTaskExecutor.on(loop)
        let alice = HubUser(id: "alice", displayName: "Alice")
        let link = Link(1)
        let session = try await Task(executorPreference: worker) {
            try await hub.host(user: alice, scenarioId: scenario.id, maxPlayers: nil, link: link, ref: nil)
        }.value
        journal.holdNextWrite()
        // Not on the loop: the write's completion must not need the loop the test keeps busy.
        let line = Task { try await session.say(userId: alice.id, textNative: "la última", textTranslated: "", ref: nil) }
        await journal.waitUntilHeld()
        let lastSeq = await session.currentSeq

        @Sendable func release(after turns: Int) {
            guard turns == 0 else {
                loop.execute { release(after: turns - 1) }
                return
            }
            journal.release()
            for _ in 0..<1000 where journal.written.last != lastSeq { usleep(1000) }
            usleep(10_000)  // the write's return to the session is queued on the loop by now
        }
        // The end reads the clock as it starts waiting for delivery (`endStage` delivering).
        clock.onNextReading { loop.execute { release(after: turnsBeforeRelease) } }
        let done = Mutex(false)
        Task(executorPreference: worker) {
            await session.end(cause: .hostEnded)
            done.withLock { $0 = true }
        }
        for _ in 0..<1000 where !done.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
        // A stuck end is left behind (with its loop): waiting for it would hang the test run.
        try #require(done.withLock { $0 }, "the end waited for a delivery that had already happened")
        try await line.value
        #expect(link.sawEnded)
    }
}
