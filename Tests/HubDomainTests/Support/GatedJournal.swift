import HubDomain
import Synchronization

/// A journal whose append of one chosen seq waits until the test releases it, so a test can
/// hold a broadcast "not yet durable" while other requests run. Everything else is appended at once.
final class GatedJournal: SessionJournal {
    private struct State {
        var entries: [JournalEntry] = []
        var writes: [[Int]] = []
        var heldSeq: Int?
        var held: CheckedContinuation<Void, Never>?
        var arrived = false
        var arrivalWaiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    init() {}

    /// The next append of `seq` will wait for ``release()``.
    func hold(seq: Int) {
        state.withLock {
            $0.heldSeq = seq
            $0.arrived = false
        }
    }

    /// Returns once the held append has arrived and is waiting.
    func waitUntilHeld() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let already = state.withLock { state -> Bool in
                if state.arrived { return true }
                state.arrivalWaiter = waiter
                return false
            }
            if already { waiter.resume() }
        }
    }

    /// Lets the held append finish.
    func release() {
        let held = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer {
                state.held = nil
                state.heldSeq = nil
            }
            return state.held
        }
        held?.resume()
    }

    func append(_ entry: JournalEntry) async throws {
        try await append(contentsOf: [entry])
    }

    /// One write of several entries; held when its first entry's seq is the held one.
    func append(contentsOf group: [JournalEntry]) async throws {
        guard let entry = group.first else { return }
        let mustWait = state.withLock { $0.heldSeq == entry.seq }
        if mustWait {
            await withCheckedContinuation { (held: CheckedContinuation<Void, Never>) in
                let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                    state.held = held
                    state.arrived = true
                    defer { state.arrivalWaiter = nil }
                    return state.arrivalWaiter
                }
                waiter?.resume()
            }
        }
        state.withLock {
            $0.entries.append(contentsOf: group)
            $0.writes.append(group.map(\.seq))
        }
    }

    /// The seqs of each write, in the order the writes completed.
    var writes: [[Int]] { state.withLock { $0.writes } }

    /// The entries in the order their appends completed.
    func entries(of sessionId: String) -> [JournalEntry] {
        state.withLock { $0.entries.filter { $0.sessionId == sessionId } }
    }
}
