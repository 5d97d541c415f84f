import SessionHubClient
import Testing

/// Backoff with full jitter, and which closes are worth coming back from.
@Suite("Reconnect policy")
struct ReconnectPolicyTests {
    @Test("Each wait is random up to a cap that doubles from the first delay to the maximum")
    func backoff() {
        let policy = ReconnectPolicy(initialDelay: .milliseconds(100), maxDelay: .seconds(1))
        #expect(policy.delay(beforeAttempt: 1, random: 0.999_999) <= .milliseconds(100))
        #expect(policy.delay(beforeAttempt: 2, random: 0.5) == .milliseconds(100))
        #expect(policy.delay(beforeAttempt: 3, random: 1) == .milliseconds(400))
        #expect(policy.delay(beforeAttempt: 5, random: 1) == .seconds(1), "capped")
        #expect(policy.delay(beforeAttempt: 500, random: 1) == .seconds(1), "no overflow")
        #expect(policy.delay(beforeAttempt: 4, random: 0) == .zero, "full jitter starts at zero")
    }

    @Test("Drops, restarts, moves and expired tokens reconnect; the client's own close and refusals do not")
    func whichCloses() {
        #expect(ReconnectPolicy.reconnects(afterClose: nil, reason: ""))
        #expect(ReconnectPolicy.reconnects(afterClose: 1001, reason: "session_handed_over: node n1 is stopping"))
        #expect(ReconnectPolicy.reconnects(afterClose: 1012, reason: "session_moved: n2"))
        #expect(ReconnectPolicy.reconnects(afterClose: 1008, reason: "token_expired: token expired"))
        #expect(ReconnectPolicy.reconnects(afterClose: 1008, reason: "token_unknown_key: token signed with a key the hub does not know (kid)"))
        #expect(!ReconnectPolicy.reconnects(afterClose: 1000, reason: "bye"))
        #expect(!ReconnectPolicy.reconnects(afterClose: 1008, reason: "token_invalid: bad signature"))
        #expect(!ReconnectPolicy.reconnects(afterClose: 1008, reason: "too_many_connections: at most 8 per user"))
        #expect(!ReconnectPolicy.reconnects(afterClose: 1009, reason: "message exceeds 16384 bytes"))
    }
}
