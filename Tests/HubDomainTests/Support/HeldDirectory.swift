import HubDomain
import Synchronization

/// A single node's directory whose ``register(_:)`` waits until the test lets it go: session
/// creations stay in flight, between the hub's checks and the session's listing.
final class HeldDirectory: SessionDirectory {
    private let inner = SingleNodeDirectory()
    private let state = Mutex<(held: [CheckedContinuation<Void, Never>], open: Bool)>(([], false))

    var local: NodeLocation { inner.local }

    /// Registrations waiting now.
    var waiting: Int { state.withLock { $0.held.count } }

    /// Lets every waiting registration go, and every later one through at once.
    func open() {
        let held = state.withLock { state in
            state.open = true
            defer { state.held.removeAll() }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }

    func register(_ header: SessionHeader) async throws -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let go = state.withLock { state -> Bool in
                if state.open { return true }
                state.held.append(continuation)
                return false
            }
            if go { continuation.resume() }
        }
        return try await inner.register(header)
    }

    func locate(joinCode: String) async throws -> SessionPlacement? { try await inner.locate(joinCode: joinCode) }
    func locate(sessionId: String) async throws -> SessionPlacement? { try await inner.locate(sessionId: sessionId) }
    func seat(of userId: String) async throws -> SessionPlacement? { try await inner.seat(of: userId) }
    func reserveSeat(userId: String, sessionId: String) async throws -> SessionPlacement? {
        try await inner.reserveSeat(userId: userId, sessionId: sessionId)
    }
    func releaseSeat(userId: String, sessionId: String) async throws {
        try await inner.releaseSeat(userId: userId, sessionId: sessionId)
    }
}
