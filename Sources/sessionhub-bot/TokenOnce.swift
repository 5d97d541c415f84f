/// A token to be used once: the first connection's, minted before the player connects (so a
/// failing `--token-cmd` is a setup failure with its own message); later connections mint anew.
actor TokenOnce {
    private var token: String?

    init(_ token: String) {
        self.token = token
    }

    /// The token the first time, nil after.
    func take() -> String? {
        defer { token = nil }
        return token
    }
}
