@testable import HubStoragePostgres
import Testing

/// The PostgreSQL journal's commit queue: several batches in flight, never one session in two.
@Suite("Journal commit queue")
struct JournalCommitQueueTests {
    @Test("Appends start committers up to the limit; later ones wait for the next batch")
    func startsUpToTheLimit() {
        var queue = JournalCommitQueue<Int>(maxInFlight: 2)
        let r1 = queue.enqueue(1, session: "a")
        #expect(r1)
        let r2 = queue.nextBatch()
        #expect(r2 == [1])
        let r3 = queue.enqueue(2, session: "b")
        #expect(r3)
        let r4 = queue.nextBatch()
        #expect(r4 == [2])
        // Both committers busy: these wait, in order, for whichever finishes first.
        let r5 = queue.enqueue(3, session: "c")
        #expect(!r5)
        let r6 = queue.enqueue(4, session: "d")
        #expect(!r6)
        let r7 = queue.nextBatch(finishing: ["b"])
        #expect(r7 == [3, 4])
        let r8 = queue.nextBatch(finishing: ["a"])
        #expect(r8 == nil)
        #expect(queue.committers == 1)
        let r9 = queue.nextBatch(finishing: ["c", "d"])
        #expect(r9 == nil)
        #expect(queue.committers == 0)
        #expect(queue.pending.isEmpty)
    }

    @Test("A session in flight in one batch is never taken by another: its entries stay in order")
    func oneSessionOneBatch() {
        var queue = JournalCommitQueue<Int>(maxInFlight: 4)
        let r10 = queue.enqueue(1, session: "a")
        #expect(r10)
        let r11 = queue.nextBatch()
        #expect(r11 == [1])
        // Room for another committer, but "a" is in flight: no new committer for it.
        let r12 = queue.enqueue(2, session: "a")
        #expect(!r12)
        let r13 = queue.enqueue(3, session: "b")
        #expect(r13)
        // The new committer takes "b" and leaves "a" to wait.
        let r14 = queue.nextBatch()
        #expect(r14 == [3])
        #expect(queue.pending.map(\.item) == [2])
        let r15 = queue.enqueue(4, session: "a")
        #expect(!r15)
        // When the first batch ends, the same committer takes a's entries, both in one batch, in order.
        let r16 = queue.nextBatch(finishing: ["a"])
        #expect(r16 == [2, 4])
        let r17 = queue.nextBatch(finishing: ["b"])
        #expect(r17 == nil)
        let r18 = queue.nextBatch(finishing: ["a", "a"])
        #expect(r18 == nil)
        #expect(queue.committers == 0)
    }

    @Test("With one commit in flight it is the plain group commit")
    func singleCommitter() {
        var queue = JournalCommitQueue<Int>(maxInFlight: 1)
        let r19 = queue.enqueue(1, session: "a")
        #expect(r19)
        let r20 = queue.nextBatch()
        #expect(r20 == [1])
        let r21 = queue.enqueue(2, session: "b")
        #expect(!r21)
        let r22 = queue.enqueue(3, session: "c")
        #expect(!r22)
        let r23 = queue.nextBatch(finishing: ["a"])
        #expect(r23 == [2, 3])
        let r24 = queue.nextBatch(finishing: ["b", "c"])
        #expect(r24 == nil)
        #expect(queue.committers == 0)
    }
}
