import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// The server's ``ConnectionCounts`` behind a lock, shared by every event loop, plus the rules
/// for finding a connection's client address (its peer, or the last `X-Forwarded-For` hop when
/// the peer is a trusted proxy). Refusals are counted in ``WebSocketStatistics``.
final class ConnectionLimiter: Sendable {
    private let counts: NIOLockedValueBox<ConnectionCounts>
    private let trustedProxies: Set<String>
    private let statistics: WebSocketStatistics

    init(configuration: WebSocketServerConfiguration, statistics: WebSocketStatistics) {
        counts = NIOLockedValueBox(ConnectionCounts(limits: .init(
            perAddress: max(1, configuration.connectionPolicy.maxConnectionsPerAddress),
            unauthenticatedPerAddress: max(1, configuration.connectionPolicy.maxUnauthenticatedConnectionsPerAddress))))
        trustedProxies = Set(configuration.connectionPolicy.trustedProxies.compactMap(Self.normalized))
        self.statistics = statistics
    }

    /// A copy of the counts, for tests and diagnostics.
    var snapshot: ConnectionCounts { counts.withLockedValue { $0 } }

    /// Whether `peer` is one of the trusted proxies (its client's address then comes with each
    /// request head, not with the connection).
    func isTrustedProxy(_ peer: SocketAddress?) -> Bool {
        guard !trustedProxies.isEmpty, let address = peer?.ipAddress else { return false }
        return trustedProxies.contains(address)
    }

    /// The client address of a request from `peer`: the last hop of `X-Forwarded-For` when
    /// `peer` is a trusted proxy and that hop is an IP address, else the peer's address.
    func clientAddress(peer: SocketAddress?, head: HTTPRequestHead) -> String? {
        if isTrustedProxy(peer),
           let header = head.headers[canonicalForm: "x-forwarded-for"].last,
           let hop = Self.normalized(String(header)) {
            return hop
        }
        return peer?.ipAddress
    }

    /// Connection `id` was accepted; it is counted (at an address, as a principal) from now until
    /// ``release(_:)``.
    func open(_ id: UInt64) {
        counts.withLockedValue { $0.open(id) }
    }

    /// Counts connection `id` at `address`; a refusal is counted in the statistics.
    func attribute(_ id: UInt64, to address: String) -> ConnectionRefusal? {
        let refusal = counts.withLockedValue { $0.attribute(id, to: address) }
        if let refusal { statistics.noteRefusal(refusal) }
        return refusal
    }

    /// See ``ConnectionCounts/leaveUnauthenticated(_:)``.
    func leaveUnauthenticated(_ id: UInt64) {
        counts.withLockedValue { $0.leaveUnauthenticated(id) }
    }

    /// See ``ConnectionCounts/authenticate(_:as:limit:)``; false when refused.
    func authenticate(_ id: UInt64, as principal: String, limit: Int) -> Bool {
        guard let refusal = counts.withLockedValue({ $0.authenticate(id, as: principal, limit: max(1, limit)) }) else { return true }
        statistics.noteRefusal(refusal)
        return false
    }

    /// Connection `id` closed.
    func release(_ id: UInt64) {
        counts.withLockedValue { $0.release(id) }
    }

    /// `text` as the canonical string of an IP address, or nil when it is not one.
    static func normalized(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return (try? SocketAddress(ipAddress: trimmed, port: 0))?.ipAddress
    }
}
