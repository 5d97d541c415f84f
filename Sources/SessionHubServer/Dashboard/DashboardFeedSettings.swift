import NIOCore

/// Bounds of the operator dashboard's live feed (`/admin/feed`, ``DashboardFeed``).
public struct DashboardFeedSettings: Sendable {
    /// Authenticated feeds open at once: the operators' places. Feeds waiting for `auth` do
    /// not count.
    public var maxConnections = 8
    /// Feeds waiting for their `auth` message at once; a new one beyond closes the oldest
    /// waiting one (1013), so squatting sockets cannot lock an operator out.
    public var maxPendingConnections = 16
    /// Time between snapshots.
    public var interval: Duration = .seconds(1)
    /// Sessions listed in one snapshot (the most recently active when there are more).
    public var maxSessions = 50
    /// The last lines of each session sent.
    public var recentLines = 8
    /// The last recasts of each session sent.
    public var recentRecasts = 4
    /// Time allowed for the `auth` message (a dashboard sends it as soon as it is connected).
    public var authTimeout: TimeAmount = .seconds(5)
    /// Largest message a feed client may send (an `auth` with a token of at most 4 KiB).
    public var maxMessageBytes = 8 * 1024

    /// The defaults.
    public init() {}
}
