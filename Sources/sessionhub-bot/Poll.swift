/// Waits for a condition by looking again every few milliseconds, with a deadline.
enum Poll {
    /// The first non-nil value of `probe`, or ``BotFailure/timeout(_:)`` naming `what` after `timeout`.
    @discardableResult
    static func until<T>(_ what: String, timeout: Duration, every interval: Duration = .milliseconds(5),
                         _ probe: () async throws -> T?) async throws -> T {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            if let value = try await probe() { return value }
            guard ContinuousClock.now < deadline else { throw BotFailure.timeout(what) }
            try await Task.sleep(for: interval)
        }
    }
}
