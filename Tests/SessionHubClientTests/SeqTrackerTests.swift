import SessionHubClient
import Testing

@Suite("SeqTracker")
struct SeqTrackerTests {
    @Test("SeqTracker accepts S+1, S+2, …; reports gaps, duplicates and broadcasts before a snapshot")
    func seqTracker() {
        var tracker = SeqTracker()
        #expect(tracker.record(3) == .beforeSnapshot(3))
        #expect(tracker.lastSeq == nil)
        tracker.restart(after: 4)
        #expect(tracker.record(5) == .next)
        #expect(tracker.record(6) == .next)
        #expect(tracker.record(6) == .duplicate(6))
        #expect(tracker.record(2) == .duplicate(2))
        #expect(tracker.record(9) == .gap(expected: 7, received: 9))
        #expect(tracker.record(10) == .next)
        #expect(tracker.lastSeq == 10)
        var fromSnapshot = SeqTracker(after: 1)
        #expect(fromSnapshot.record(2) == .next)
        fromSnapshot.restart(after: 40)
        #expect(fromSnapshot.record(41) == .next)
    }
}
