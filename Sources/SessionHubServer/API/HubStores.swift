import HubStorage

/// The repositories the HTTP API reads and writes.
public struct HubStores: Sendable {
    public var profiles: any ProfileRepository
    public var history: any HistoryRepository
    public var progress: any ProgressRepository

    /// Bundles the repositories.
    public init(profiles: any ProfileRepository, history: any HistoryRepository, progress: any ProgressRepository) {
        self.profiles = profiles
        self.history = history
        self.progress = progress
    }
}
