import Foundation

// A stand-in with the signatures of os.OSAllocatedUnfairLock (macOS 13 / iOS 16), so that the
// Apple branch of SessionHubSync is type-checked on Linux (scripts/check-apple-branch.sh).
public final class OSAllocatedUnfairLock<State>: @unchecked Sendable {
    private var state: State
    private let lock = NSLock()

    public init(uncheckedState: State) { state = uncheckedState }

    public init(initialState: State) where State: Sendable { state = initialState }

    public func withLockUnchecked<R>(_ body: (inout State) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }

    public func withLock<R: Sendable>(_ body: @Sendable (inout State) throws -> R) rethrows -> R where State: Sendable {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
