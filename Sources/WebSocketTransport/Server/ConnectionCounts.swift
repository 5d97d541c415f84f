/// The server's connection counts, as a state struct without I/O: open connections per client
/// address, unauthenticated ones per address, and authenticated ones per principal (a user). Each
/// connection holds one lease, found by its id; every transition keeps the totals equal to the
/// sum over the leases, and ``release(_:)`` (on every close path) gives everything back.
///
/// A connection is *unauthenticated* from accept until it upgrades to an endpoint that does not
/// authenticate, or until its endpoint reports who it is (``authenticate(_:as:limit:)``).
struct ConnectionCounts: Sendable {
    typealias Refusal = ConnectionRefusal

    /// The caps per address (the per-principal cap is the caller's, per call).
    struct Limits: Sendable, Equatable {
        var perAddress: Int
        var unauthenticatedPerAddress: Int
    }

    private struct Lease: Sendable {
        var address: String?
        var authenticated = false
        var principal: String?
    }

    let limits: Limits
    private var leases: [UInt64: Lease] = [:]
    private(set) var open: [String: Int] = [:]
    private(set) var unauthenticated: [String: Int] = [:]
    private(set) var principals: [String: Int] = [:]

    init(limits: Limits) {
        self.limits = limits
    }

    /// Connections holding a lease.
    var leaseCount: Int { leases.count }

    /// Connection `id` was accepted (its address may not be known yet).
    mutating func open(_ id: UInt64) {
        if leases[id] == nil { leases[id] = Lease() }
    }

    /// Attributes connection `id` to `address` (at accept, or at each request head when the peer
    /// is a trusted proxy and the address comes from `X-Forwarded-For`). Moving to another
    /// address gives the old one's counts back first. On a refusal the connection counts nowhere
    /// and is to be closed.
    mutating func attribute(_ id: UInt64, to address: String) -> Refusal? {
        var lease = leases[id] ?? Lease()
        if lease.address == address { return nil }
        if let old = lease.address { uncount(old, authenticated: lease.authenticated) }
        lease.address = nil
        leases[id] = lease
        if open[address, default: 0] >= limits.perAddress { return .perAddress }
        if !lease.authenticated, unauthenticated[address, default: 0] >= limits.unauthenticatedPerAddress {
            return .unauthenticatedPerAddress
        }
        open[address, default: 0] += 1
        if !lease.authenticated { unauthenticated[address, default: 0] += 1 }
        lease.address = address
        leases[id] = lease
        return nil
    }

    /// Connection `id` upgraded to an endpoint that does not authenticate: it stops counting as
    /// unauthenticated.
    mutating func leaveUnauthenticated(_ id: UInt64) {
        guard var lease = leases[id], !lease.authenticated else { return }
        lease.authenticated = true
        if let address = lease.address { Self.decrement(&unauthenticated, address) }
        leases[id] = lease
    }

    /// Connection `id` proved to be `principal`; refused when `principal` already holds `limit`
    /// authenticated connections (the connection then stays unauthenticated until it closes).
    /// Authenticating again as the same principal changes nothing; a connection already released
    /// (closed while its endpoint was still checking it) counts nowhere.
    mutating func authenticate(_ id: UInt64, as principal: String, limit: Int) -> Refusal? {
        guard var lease = leases[id] else { return nil }
        if lease.principal == principal { return nil }
        if principals[principal, default: 0] >= limit { return .perUser }
        if let old = lease.principal { Self.decrement(&principals, old) }
        principals[principal, default: 0] += 1
        lease.principal = principal
        if !lease.authenticated {
            lease.authenticated = true
            if let address = lease.address { Self.decrement(&unauthenticated, address) }
        }
        leases[id] = lease
        return nil
    }

    /// Connection `id` closed: everything it counted in is given back.
    mutating func release(_ id: UInt64) {
        guard let lease = leases.removeValue(forKey: id) else { return }
        if let address = lease.address { uncount(address, authenticated: lease.authenticated) }
        if let principal = lease.principal { Self.decrement(&principals, principal) }
    }

    private mutating func uncount(_ address: String, authenticated: Bool) {
        Self.decrement(&open, address)
        if !authenticated { Self.decrement(&unauthenticated, address) }
    }

    private static func decrement(_ counts: inout [String: Int], _ key: String) {
        guard let value = counts[key] else { return }
        counts[key] = value > 1 ? value - 1 : nil
    }
}
