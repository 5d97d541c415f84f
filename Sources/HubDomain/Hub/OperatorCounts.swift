/// Live totals for the operator's server view.
public struct OperatorCounts: Sendable, Equatable {
    /// Live sessions.
    public var sessions = 0
    /// Of which shared (HOST/CLIENT).
    public var sharedSessions = 0
    /// Seats held, connected or in a grace window.
    public var seats = 0
    /// Of which connected.
    public var connectedSeats = 0

    /// Zero counts.
    public init() {}
}
