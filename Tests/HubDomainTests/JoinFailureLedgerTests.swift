import HubDomain
import Testing

/// The failure budget for joins, per user and per address, kept across connections.
@Suite struct JoinFailureLedgerTests {
    static let t0: Int64 = 1_700_000_000_000
    static let minute: Int64 = 60_000

    /// 3 failures per user, 5 per address in 1 minute; a lockout of 10 minutes.
    func ledger() -> JoinFailureLedger {
        JoinFailureLedger(windowMillis: Self.minute, maxFailuresPerUser: 3, maxFailuresPerAddress: 5,
                          lockoutMillis: 10 * Self.minute)
    }

    @Test func theDefaultsAreTenPerUserThirtyPerAddressInFiveMinutesThenFifteenLocked() {
        let defaults = JoinFailureLedger(configuration: HubConfiguration())
        #expect(defaults.maxFailuresPerUser == 10)
        #expect(defaults.maxFailuresPerAddress == 30)
        #expect(defaults.windowMillis == 5 * Self.minute)
        #expect(defaults.lockoutMillis == 15 * Self.minute)
    }

    @Test func aUserIsLockedAfterTheBudgetAndFreeWithAFreshOneAfterTheLockout() {
        var ledger = ledger()
        let t0 = Self.t0
        #expect(ledger.admit(user: "mallory", address: "10.0.0.1", now: t0) == .allowed)
        #expect(ledger.recordFailure(user: "mallory", address: nil, now: t0) == .counted)
        #expect(ledger.recordFailure(user: "mallory", address: nil, now: t0 + 1000) == .counted)
        #expect(ledger.admit(user: "mallory", address: nil, now: t0 + 2000) == .allowed)
        let until = t0 + 2000 + 10 * Self.minute
        #expect(ledger.recordFailure(user: "mallory", address: nil, now: t0 + 2000) == .lockedOut(keys: [.user("mallory")], until: until))
        // Locked from any address, with the time left.
        #expect(ledger.admit(user: "mallory", address: "10.0.0.9", now: t0 + 3000) == .locked(retryAfterMillis: until - t0 - 3000))
        #expect(ledger.admit(user: "mallory", address: nil, now: until - 1) == .locked(retryAfterMillis: 1))
        // Others are not.
        #expect(ledger.admit(user: "ana", address: nil, now: t0 + 3000) == .allowed)
        // After the lockout: a fresh budget of 3.
        #expect(ledger.admit(user: "mallory", address: nil, now: until) == .allowed)
        #expect(ledger.recordFailure(user: "mallory", address: nil, now: until) == .counted)
        #expect(ledger.recordFailure(user: "mallory", address: nil, now: until + 1) == .counted)
        #expect(ledger.recordFailure(user: "mallory", address: nil, now: until + 2) != .counted)
        #expect(ledger.failureCount == 6)
        #expect(ledger.lockoutCount == 2)
    }

    @Test func failuresOlderThanTheWindowNoLongerCount() {
        var ledger = ledger()
        let t0 = Self.t0
        _ = ledger.recordFailure(user: "u", address: nil, now: t0)
        _ = ledger.recordFailure(user: "u", address: nil, now: t0 + 30_000)
        // The first is a minute old: two left in the window, so this third is no lockout.
        #expect(ledger.recordFailure(user: "u", address: nil, now: t0 + Self.minute) == .counted)
        #expect(ledger.admit(user: "u", address: nil, now: t0 + Self.minute) == .allowed)
        // A fourth while the last two are still inside: locked.
        #expect(ledger.recordFailure(user: "u", address: nil, now: t0 + Self.minute + 1) != .counted)
    }

    @Test func anAddressIsLockedForEveryUserBehindIt() {
        var ledger = ledger()
        let t0 = Self.t0
        // Five users, one failure each, from one address: the address's budget of 5 is spent.
        for index in 0..<4 {
            #expect(ledger.recordFailure(user: "bot-\(index)", address: "203.0.113.7", now: t0 + Int64(index)) == .counted)
        }
        #expect(ledger.recordFailure(user: "bot-4", address: "203.0.113.7", now: t0 + 4)
            == .lockedOut(keys: [.address("203.0.113.7")], until: t0 + 4 + 10 * Self.minute))
        // A new user from that address is refused; the same users elsewhere are not.
        #expect(ledger.admit(user: "bot-9", address: "203.0.113.7", now: t0 + 5) != .allowed)
        #expect(ledger.admit(user: "bot-0", address: "198.51.100.1", now: t0 + 5) == .allowed)
    }

    @Test func bothBudgetsCanBeSpentByOneFailureAndTheLongerLockoutIsReported() {
        var ledger = JoinFailureLedger(windowMillis: Self.minute, maxFailuresPerUser: 2, maxFailuresPerAddress: 3,
                                       lockoutMillis: Self.minute)
        let t0 = Self.t0
        _ = ledger.recordFailure(user: "a", address: "x", now: t0)          // a:1 x:1
        #expect(ledger.recordFailure(user: "a", address: "x", now: t0 + 1) == .lockedOut(keys: [.user("a")], until: t0 + 1 + Self.minute))
        // x has 2; b's first failure spends it.
        #expect(ledger.recordFailure(user: "b", address: "x", now: t0 + 10_000)
            == .lockedOut(keys: [.address("x")], until: t0 + 10_000 + Self.minute))
        #expect(ledger.admit(user: "a", address: "x", now: t0 + 20_000) == .locked(retryAfterMillis: 50_000))
    }

    @Test func staleKeysAreForgotten() {
        var ledger = ledger()
        let t0 = Self.t0
        for index in 0..<3000 {
            _ = ledger.recordFailure(user: "u\(index)", address: "a\(index)", now: t0)
        }
        // Two hours later the old keys hold nothing: a sweep leaves only what is live.
        ledger.sweep(now: t0 + 120 * Self.minute)
        #expect(ledger.trackedKeys == 0)
        _ = ledger.recordFailure(user: "u", address: nil, now: t0 + 120 * Self.minute)
        #expect(ledger.trackedKeys == 1)
    }

    @Test func theHubLocksAUserOutOfJoiningEvenWithTheRightCode() async throws {
        var configuration = HubConfiguration()
        configuration.maxJoinFailuresPerUser = 3
        configuration.joinLockoutMillis = 60_000
        let h = Harness(configuration: configuration)
        let alice = try await h.host()
        let code = try #require(alice.session.joinCode)
        for guess in ["AAAAAA", "BBBBBB", "CCCCCC"] {
            #expect(await errorCode { _ = try await h.hub.join(user: Users.bob, code: guess, address: "a", link: RecordingLink(), ref: nil) }
                == .unknownJoinCode)
        }
        let locked = await hubError { _ = try await h.hub.join(user: Users.bob, code: code, address: "b", link: RecordingLink(), ref: nil) }
        #expect(locked?.code == .joinLocked)
        #expect(locked?.retryAfterSeconds == 60)
        #expect(await h.hub.session(of: Users.bob.id) == nil)
        let counts = await h.hub.joinFailureCounts
        #expect(counts.failures == 3 && counts.lockouts == 1)
        // Carol, from the same address, is not locked (3 < 30); Bob is, until the lockout ends.
        _ = try await h.hub.join(user: Users.carol, code: code, address: "a", link: RecordingLink(), ref: nil)
        h.clock.advance(59_500)
        #expect(await hubError { _ = try await h.hub.join(user: Users.bob, code: code, link: RecordingLink(), ref: nil) }?.retryAfterSeconds == 1)
        h.clock.advance(500)
        _ = try await h.hub.join(user: Users.bob, code: code, link: RecordingLink(), ref: nil)
        #expect(await alice.session.participants().count == 3)
    }
}
