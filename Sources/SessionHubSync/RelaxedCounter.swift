#if canImport(Darwin)
import os
#else
import Synchronization
#endif

/// An `Int` many threads add to and read without ordering other memory: statistics.
///
/// On Linux it is Synchronization's `Atomic<Int>` with relaxed ordering. Apple platforms get
/// `Atomic` only from macOS 15 / iOS 18, so there it is an `OSAllocatedUnfairLock` around the
/// count (see ``LockedValue``).
public struct RelaxedCounter: ~Copyable, @unchecked Sendable {
    #if canImport(Darwin)
    @usableFromInline let lock = OSAllocatedUnfairLock(initialState: 0)
    #else
    @usableFromInline let atomic = Atomic<Int>(0)
    #endif

    /// A counter at zero.
    @inlinable
    public init() {}

    /// The count now.
    @inlinable
    public var value: Int {
        #if canImport(Darwin)
        lock.withLock { $0 }
        #else
        atomic.load(ordering: .relaxed)
        #endif
    }

    /// Adds `amount` (negative to take away) and returns the new count.
    @inlinable
    @discardableResult
    public func add(_ amount: Int) -> Int {
        #if canImport(Darwin)
        lock.withLock { count in
            count &+= amount
            return count
        }
        #else
        atomic.wrappingAdd(amount, ordering: .relaxed).newValue
        #endif
    }
}
