import HubStorage

/// Checks that the hub's storage answers, for `/readyz` and `GET /admin/api/server`.
///
/// On the embedded SQLite store it runs a real query on the live connection (the count of
/// sealed sessions waiting for a history retry); on a store it does not know it reads a
/// profile through the API's repositories; an in-memory hub is always reachable.
struct StorageProbe: Sendable {
    /// What the probe found.
    struct Health: Sendable {
        /// `sqlite`, `repositories` or `memory`.
        var kind: String
        /// Whether the storage answered.
        var reachable: Bool
        /// Ended sessions waiting for a history write (SQLite only).
        var sealedSessions: Int?
        /// Why it is unreachable (a storage message: never a bound value or a secret).
        var error: String?
    }

    let kind: String
    private let check: @Sendable () async throws -> Int?

    init(kind: String, check: @escaping @Sendable () async throws -> Int?) {
        self.kind = kind
        self.check = check
    }

    /// The probe for `persistence`.
    init(_ persistence: HubPersistence) {
        if let store = persistence.history as? SQLiteStore {
            self.init(kind: "sqlite") { try store.sealedCount() }
        } else if let probe = persistence.probe {
            self.init(kind: persistence.storageKind ?? "custom", check: probe)
        } else if let stores = persistence.stores {
            self.init(kind: "repositories") {
                _ = try await stores.profiles.profile(userId: "readiness-probe")
                return nil
            }
        } else {
            self.init(kind: "memory") { nil }
        }
    }

    /// Runs the check once.
    func probe() async -> Health {
        do {
            let sealed = try await check()
            return Health(kind: kind, reachable: true, sealedSessions: sealed, error: nil)
        } catch {
            return Health(kind: kind, reachable: false, sealedSessions: nil, error: String(describing: error).prefix(200).description)
        }
    }
}
