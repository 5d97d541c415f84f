import Foundation

/// A ``SessionHubClientStore`` in one JSON file, replaced atomically on every save.
public actor FileClientStore: SessionHubClientStore {
    private let url: URL

    /// A store in the file at `url` (its directory must exist).
    public init(url: URL) {
        self.url = url
    }

    public func load() throws -> SavedSeat? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try JSONDecoder().decode(SavedSeat.self, from: Data(contentsOf: url))
    }

    public func save(_ seat: SavedSeat) throws {
        try JSONEncoder().encode(seat).write(to: url, options: .atomic)
    }

    public func clear() throws {
        if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
    }
}
