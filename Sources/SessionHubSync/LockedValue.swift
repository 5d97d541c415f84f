#if canImport(Darwin)
import os
#else
import Synchronization
#endif

/// A value guarded by a lock, for state several threads share.
///
/// On Linux it is Synchronization's `Mutex`, stored inline. Apple platforms get `Mutex` only from
/// macOS 15 / iOS 18, and the package supports macOS 14 / iOS 17 (an app's client library), so
/// there it is an `OSAllocatedUnfairLock` (macOS 13 / iOS 16), which allocates its storage once.
///
/// ```swift
/// let pool = LockedValue<[Deflater]>([])
/// let taken = pool.withLock { $0.popLast() }
/// ```
public struct LockedValue<Value>: ~Copyable, @unchecked Sendable {
    #if canImport(Darwin)
    @usableFromInline let lock: OSAllocatedUnfairLock<Value>
    #else
    @usableFromInline let mutex: Mutex<Value>
    #endif

    /// A lock guarding `value`.
    @inlinable
    public init(_ value: sending Value) {
        #if canImport(Darwin)
        lock = OSAllocatedUnfairLock(uncheckedState: value)
        #else
        mutex = Mutex(value)
        #endif
    }

    /// Runs `body` with the value while holding the lock; `body` must not call back into this lock.
    @inlinable
    public borrowing func withLock<Result, Failure: Error>(_ body: (inout sending Value) throws(Failure) -> sending Result) throws(Failure) -> sending Result {
        #if canImport(Darwin)
        let outcome: Swift.Result<Result, Failure> = lock.withLockUnchecked { value in
            do throws(Failure) {
                return .success(try body(&value))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
        #else
        return try mutex.withLock(body)
        #endif
    }
}
