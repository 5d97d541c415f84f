import NIOCore

/// The one clock of the load test: CLOCK_MONOTONIC in nanoseconds, the clock NIO schedules with
/// (`NIODeadline.uptimeNanoseconds`). Send stamps and receive times are both taken from it in
/// the same process, so a latency is a plain difference.
@inline(__always)
func monotonicNanos() -> UInt64 {
    NIODeadline.now().uptimeNanoseconds
}

/// A deadline on the same clock.
@inline(__always)
func deadline(atNanos nanos: UInt64) -> NIODeadline {
    NIODeadline.uptimeNanoseconds(nanos)
}

/// Seconds as nanoseconds.
@inline(__always)
func nanos(seconds: Double) -> UInt64 {
    UInt64(max(0, seconds) * 1_000_000_000)
}

import Synchronization

/// A counter that concurrent tasks can share.
final class SharedCounter: Sendable {
    private let value = Atomic<Int>(0)
    /// Adds one and returns the value before.
    func next() -> Int { value.add(1, ordering: .relaxed).oldValue }
    var current: Int { value.load(ordering: .relaxed) }
}

/// A list that concurrent tasks can append to.
final class SharedList<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])
    func append(_ item: Element) { items.withLock { $0.append(item) } }
    var all: [Element] { items.withLock { $0 } }
}
