/// The hub's memory of failed `join` attempts, kept across connections: a failure budget per user
/// and per client address, and a lockout once either is spent.
///
/// Each failure (a join code that names no live session) is counted against the user and, when
/// known, the client address. A key with ``HubConfiguration/maxJoinFailuresPerUser`` (user) or
/// ``HubConfiguration/maxJoinFailuresPerAddress`` (address) failures within the last
/// ``HubConfiguration/joinFailureWindowMillis`` is locked for
/// ``HubConfiguration/joinLockoutMillis``: every join by that user, or from that address, is
/// refused (``Admission/locked(retryAfterMillis:)``) without looking at the code, right or
/// wrong. When the lockout ends the key starts with an empty budget. A success resets nothing
/// (else joining one's own session between guesses would refill the budget).
///
/// Pure state with explicit transitions: time is passed in (epoch ms), nothing here knows about
/// sockets; the address is an opaque key chosen by the server.
public struct JoinFailureLedger: Sendable {
    /// Whose budget a failure is counted against.
    public enum Key: Hashable, Sendable {
        /// A user id (the token's `sub`).
        case user(String)
        /// A client address, as an opaque key.
        case address(String)
    }

    /// The answer to ``admit(user:address:now:)``.
    public enum Admission: Equatable, Sendable {
        /// The join may look up its code.
        case allowed
        /// The user or the address is locked out for this long still (the longer of the two).
        case locked(retryAfterMillis: Int64)
    }

    /// The answer to ``recordFailure(user:address:now:)``.
    public enum FailureOutcome: Equatable, Sendable {
        /// Counted; the budgets are not spent yet.
        case counted
        /// This failure spent the budget of `keys`; they are locked until `until` (epoch ms).
        case lockedOut(keys: [Key], until: Int64)
    }

    private struct Record: Sendable {
        /// When the failures still inside the window happened (at most the key's limit).
        var failures: [Int64] = []
        /// The end of the lockout, or nil when the key is not locked.
        var lockedUntil: Int64?
    }

    /// Failure window, ms.
    public let windowMillis: Int64
    /// Failures per user within the window before a lockout.
    public let maxFailuresPerUser: Int
    /// Failures per address within the window before a lockout.
    public let maxFailuresPerAddress: Int
    /// Length of a lockout, ms.
    public let lockoutMillis: Int64

    /// Failures counted since the hub started.
    public private(set) var failureCount = 0
    /// Lockouts begun since the hub started (one per key locked).
    public private(set) var lockoutCount = 0

    private var records: [Key: Record] = [:]
    /// Records beyond which stale ones are swept (doubles with what survives a sweep).
    private var sweepThreshold = 1024

    /// A ledger with the limits of `configuration`.
    public init(configuration: HubConfiguration) {
        self.init(windowMillis: configuration.joinFailureWindowMillis,
                  maxFailuresPerUser: configuration.maxJoinFailuresPerUser,
                  maxFailuresPerAddress: configuration.maxJoinFailuresPerAddress,
                  lockoutMillis: configuration.joinLockoutMillis)
    }

    /// A ledger with explicit limits (each at least 1).
    public init(windowMillis: Int64, maxFailuresPerUser: Int, maxFailuresPerAddress: Int, lockoutMillis: Int64) {
        self.windowMillis = max(1, windowMillis)
        self.maxFailuresPerUser = max(1, maxFailuresPerUser)
        self.maxFailuresPerAddress = max(1, maxFailuresPerAddress)
        self.lockoutMillis = max(1, lockoutMillis)
    }

    /// How many keys the ledger remembers (for tests of its bound).
    public var trackedKeys: Int { records.count }

    /// Whether `user` (from `address`) may attempt a join at `now`.
    public mutating func admit(user: String, address: String?, now: Int64) -> Admission {
        var longest: Int64 = 0
        for key in Self.keys(user: user, address: address) {
            guard var record = records[key], let until = record.lockedUntil else { continue }
            if until > now {
                longest = max(longest, until - now)
            } else {
                record.lockedUntil = nil
                records[key] = record
            }
        }
        return longest > 0 ? .locked(retryAfterMillis: longest) : .allowed
    }

    /// Counts a failed join of `user` (from `address`) at `now`; locks every key whose budget
    /// it spends.
    public mutating func recordFailure(user: String, address: String?, now: Int64) -> FailureOutcome {
        failureCount += 1
        var locked: [Key] = []
        let until = now + lockoutMillis
        for key in Self.keys(user: user, address: address) {
            var record = records[key] ?? Record()
            if let lockedUntil = record.lockedUntil, lockedUntil > now { continue }
            record.lockedUntil = nil
            record.failures.removeAll { $0 <= now - windowMillis }
            record.failures.append(now)
            if record.failures.count >= limit(of: key) {
                record.failures.removeAll()
                record.lockedUntil = until
                locked.append(key)
                lockoutCount += 1
            }
            records[key] = record
        }
        if records.count > sweepThreshold { sweep(now: now) }
        return locked.isEmpty ? .counted : .lockedOut(keys: locked, until: until)
    }

    /// Forgets keys that are neither locked nor hold a failure inside the window.
    public mutating func sweep(now: Int64) {
        records = records.filter { _, record in
            if let until = record.lockedUntil, until > now { return true }
            return record.failures.contains { $0 > now - windowMillis }
        }
        sweepThreshold = max(1024, records.count * 2)
    }

    private func limit(of key: Key) -> Int {
        switch key {
        case .user: return maxFailuresPerUser
        case .address: return maxFailuresPerAddress
        }
    }

    private static func keys(user: String, address: String?) -> [Key] {
        address.map { [.user(user), .address($0)] } ?? [.user(user)]
    }
}
