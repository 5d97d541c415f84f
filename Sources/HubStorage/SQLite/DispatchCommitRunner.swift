import Dispatch

/// Runs a ``SQLiteJournal``'s commits on a serial dispatch queue (the default runner).
public struct DispatchCommitRunner: SQLiteCommitRunner {
    private let queue: DispatchQueue

    /// A runner on a new serial queue named `label`, at `userInitiated` quality of service.
    public init(label: String = "sessionhub.journal.commit") {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    public func run(atUptimeNanoseconds deadline: UInt64, _ work: @escaping @Sendable () -> Void) {
        if deadline <= DispatchTime.now().uptimeNanoseconds {
            queue.async(execute: work)
        } else {
            queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: deadline), execute: work)
        }
    }
}
