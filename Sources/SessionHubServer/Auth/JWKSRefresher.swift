import Foundation
import Logging
import NIOCore
import NIOSSL
import Synchronization

/// Keeps the identity provider's keys (``JWKSKeyRing``) current: loads them at start, then
/// reloads every ``IdentityProviderSettings/refreshSeconds`` and soon after a token named an
/// unknown `kid`, never twice within ``IdentityProviderSettings/minRefreshSeconds``. A file is
/// also read that often and its keys swapped when its content changed. A failed reload is
/// logged and keeps the keys already loaded. ``run()`` ends when its task is cancelled.
public final class JWKSRefresher: Sendable {
    private struct State {
        var lastAttempt: ContinuousClock.Instant?
        var lastContent: [UInt8]?
        var failed = false
    }

    /// Where the keys come from.
    public let source: JWKSSource
    /// Where they go.
    public let ring: JWKSKeyRing
    private let settings: IdentityProviderSettings
    private let fetcher: JWKSFetcher
    private let logger: Logger
    private let state = Mutex(State())
    private let clock = ContinuousClock()

    /// A refresher of `ring` from `source`; URLs are fetched on `group`'s event loops.
    public convenience init(source: JWKSSource, ring: JWKSKeyRing, settings: IdentityProviderSettings,
                            group: any EventLoopGroup, logger: Logger) {
        self.init(source: source, ring: ring, settings: settings, fetcher: JWKSFetcher(group: group), logger: logger)
    }

    init(source: JWKSSource, ring: JWKSKeyRing, settings: IdentityProviderSettings, fetcher: JWKSFetcher, logger: Logger) {
        self.source = source
        self.ring = ring
        self.settings = settings
        self.fetcher = fetcher
        self.logger = logger
    }

    /// Reads the source and, when its content changed, swaps the keys; returns whether it did.
    /// - Throws: ``JWKSError``; the keys in use then stay.
    @discardableResult
    public func reload() async throws(JWKSError) -> Bool {
        state.withLock { $0.lastAttempt = clock.now }
        let content = try await read()
        if state.withLock({ $0.lastContent == content }) { return false }
        let set = try JSONWebKeySet(data: content, source: source.description)
        ring.replace(with: set)
        state.withLock { $0.lastContent = content }
        logger.info("identity provider keys loaded", metadata: ["source": "\(source)", "kids": "\(set.kids.joined(separator: ","))"])
        for (kid, error) in set.skipped {
            logger.warning("identity provider key skipped", metadata: ["kid": "\(kid.prefix(100))", "code": "\(error.code)",
                                                                         "reason": "\(error)"])
        }
        return true
    }

    /// Reloads whenever one is due, until cancelled.
    public func run() async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: .seconds(1))
            } catch {
                return
            }
            guard isDue() else { continue }
            do {
                try await reload()
                state.withLock { $0.failed = false }
            } catch {
                state.withLock { $0.failed = true }
                logger.warning("identity provider keys not reloaded; the previous keys stay",
                               metadata: ["code": "\(error.code)", "problem": "\(error)"])
            }
        }
    }

    /// Whether a reload is due now: the period passed; or the least interval passed and a token
    /// named an unknown `kid`, the last reload failed, or the source is a file.
    private func isDue() -> Bool {
        let (last, failed) = state.withLock { ($0.lastAttempt, $0.failed) }
        guard let last else { return true }
        let elapsed = clock.now - last
        if elapsed >= .seconds(settings.refreshSeconds) {
            _ = ring.takeRefreshRequest()
            return true
        }
        guard elapsed >= .seconds(settings.minRefreshSeconds) else { return false }
        if case .file = source { _ = ring.takeRefreshRequest(); return true }
        return ring.takeRefreshRequest() || failed
    }

    private func read() async throws(JWKSError) -> [UInt8] {
        switch source {
        case .file(let path):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw .unreadable(source: path, reason: "no such file, or not readable")
            }
            guard data.count <= JWKSFetcher.maxKeySetBytes else {
                throw .unreadable(source: path, reason: "larger than \(JWKSFetcher.maxKeySetBytes) bytes")
            }
            return Array(data)
        case .url(let url):
            return try await fetcher.fetch(url)
        }
    }
}
