/// Where a ``SessionHubClient`` keeps its ``SavedSeat`` between launches of the app: implement
/// it on the app's own storage (a file, the keychain, user defaults), or use
/// ``FileClientStore``. Calls come one at a time, in order.
public protocol SessionHubClientStore: Sendable {
    /// The seat saved last, if any.
    func load() async throws -> SavedSeat?
    /// Replaces what is saved.
    func save(_ seat: SavedSeat) async throws
    /// Forgets the seat (the client left or the session ended).
    func clear() async throws
}
