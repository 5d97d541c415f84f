@testable import SessionHubClient
import Testing

/// The client's unacknowledged lines: in order, found by clientId or by their latest send.
@Suite("Line outbox")
struct LineOutboxTests {
    @Test("Lines stay in the order said; an acknowledgement or a refusal takes out exactly one")
    func order() {
        var outbox = LineOutbox<Int>()
        outbox.add(clientId: "a", text: "uno", translation: "", waiter: 1)
        outbox.add(clientId: "b", text: "dos", translation: "", waiter: 2)
        outbox.add(clientId: "c", text: "tres", translation: "", waiter: 3)
        outbox.sent("b", as: "r1")
        outbox.sent("b", as: "r2")   // sent again after a resume: only the latest send counts
        #expect(outbox.take(requestId: "r1") == nil)
        #expect(outbox.take(clientId: "a")?.waiter == 1)
        #expect(outbox.lines.map(\.clientId) == ["b", "c"])
        #expect(outbox.take(requestId: "r2")?.waiter == 2)
        #expect(outbox.take(clientId: "zz") == nil)
        #expect(outbox.removeAll().map(\.waiter) == [3])
        #expect(outbox.isEmpty)
    }
}
