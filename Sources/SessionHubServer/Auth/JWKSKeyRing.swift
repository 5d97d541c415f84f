import Synchronization

/// The identity provider's keys as last loaded, shared by every verification (a lock held only to
/// copy the array out) and swapped whole by the refresher. It also carries the verifiers' wish
/// for an early refresh, raised by a token whose `kid` it does not know.
public final class JWKSKeyRing: Sendable {
    private struct State {
        var keys: [JSONWebKey] = []
        var refreshWanted = false
    }

    private let state = Mutex(State())

    /// An empty ring (every RS256/ES256 token is refused as `token_unknown_key` until keys are set).
    public init() {}

    /// The keys now in use.
    public var keys: [JSONWebKey] { state.withLock { $0.keys } }

    /// Replaces every key at once: tokens signed with a key still in `set` keep verifying.
    public func replace(with set: JSONWebKeySet) {
        state.withLock { $0.keys = set.keys }
    }

    /// Asks the refresher for an early refresh (it decides when, rate-limited).
    func requestRefresh() {
        state.withLock { $0.refreshWanted = true }
    }

    /// Whether a refresh was asked for since the last call; clears the wish.
    func takeRefreshRequest() -> Bool {
        state.withLock { state in
            defer { state.refreshWanted = false }
            return state.refreshWanted
        }
    }

    /// The keys that may have signed a token of `algorithm` with `kid`: those with that `kid`;
    /// for a token that names none, the set's only key of the algorithm (with several, which one
    /// signed is unknown, and trying each would let a token without `kid` cost many signature
    /// checks).
    /// - Throws: `unknownKey` when none has that `kid` (an early refresh is asked for);
    ///   `unsupportedAlgorithm` when the keys with that `kid` are for another algorithm.
    func candidates(kid: String?, algorithm: JSONWebKey.Algorithm) throws(AuthError) -> [JSONWebKey] {
        let keys = self.keys
        guard let kid else {
            let matching = keys.filter { $0.algorithm == algorithm }
            guard matching.count == 1 else { throw .unknownKey }
            return matching
        }
        let named = keys.filter { $0.kid == kid }
        guard !named.isEmpty else {
            requestRefresh()
            throw .unknownKey
        }
        let matching = named.filter { $0.algorithm == algorithm }
        guard !matching.isEmpty else { throw .unsupportedAlgorithm }
        return matching
    }
}
