/// Wall-clock time for the hub, injectable so tests control grace windows and stamps.
public protocol HubClock: Sendable {
    /// Now, in epoch milliseconds.
    func now() -> Int64
}
