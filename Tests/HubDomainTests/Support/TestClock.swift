import HubDomain
import Synchronization

/// A manual clock: time moves only when a test says so.
final class TestClock: HubClock {
    /// 2023-11-14T22:13:20Z, a fixed, unremarkable instant.
    static let start: Int64 = 1_700_000_000_000
    /// One UTC day in milliseconds.
    static let day: Int64 = 86_400_000

    private let millis: Mutex<Int64>

    init(_ start: Int64 = TestClock.start) {
        millis = Mutex(start)
    }

    func now() -> Int64 { millis.withLock { $0 } }

    /// Moves time forward by `ms` milliseconds.
    func advance(_ ms: Int64) { millis.withLock { $0 += ms } }

    /// Sets the time.
    func set(_ ms: Int64) { millis.withLock { $0 = ms } }
}
