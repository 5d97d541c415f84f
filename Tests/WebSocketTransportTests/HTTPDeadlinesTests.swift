import NIOCore
import Testing
@testable import WebSocketTransport

/// The HTTP phase's deadline state machine, without I/O.
@Suite struct HTTPDeadlinesTests {
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    func make() -> HTTPDeadlines {
        HTTPDeadlines(headTimeout: .seconds(10), bodyTimeout: .seconds(30), idleTimeout: .seconds(20), now: start)
    }

    @Test func aSilentConnectionIsClosedWithoutAWordAtTheHeadDeadline() {
        var deadlines = make()
        #expect(deadlines.initialAction == .schedule(start + .seconds(10)))
        #expect(deadlines.expire(now: start + .seconds(9)) == nil)
        #expect(deadlines.expire(now: start + .seconds(10)) == .close(.head))
        #expect(deadlines.expire(now: start + .seconds(11)) == nil)  // only once
    }

    @Test func aDribbledHeadDoesNotMoveTheDeadlineAndGets408() {
        var deadlines = make()
        for second in 0..<10 {
            #expect(deadlines.bytesReceived(now: start + .seconds(Int64(second))) == .keep)
        }
        #expect(deadlines.expire(now: start + .seconds(10)) == .requestTimeout(.head))
    }

    @Test func theBodyHasItsOwnDeadlineFromTheHead() {
        var deadlines = make()
        _ = deadlines.bytesReceived(now: start)
        #expect(deadlines.headReceived(now: start + .seconds(2)) == .schedule(start + .seconds(32)))
        #expect(deadlines.bytesReceived(now: start + .seconds(20)) == .keep)
        #expect(deadlines.expire(now: start + .seconds(31)) == nil)
        #expect(deadlines.expire(now: start + .seconds(32)) == .requestTimeout(.body))
    }

    @Test func noDeadlineWhileRespondingThenIdleThenHeadFromTheFirstByte() {
        var deadlines = make()
        _ = deadlines.headReceived(now: start + .seconds(1))
        #expect(deadlines.requestReceived() == .cancel)
        #expect(deadlines.expire(now: start + .seconds(1000)) == nil)
        #expect(deadlines.responseSent(now: start + .seconds(100)) == .schedule(start + .seconds(120)))
        #expect(deadlines.bytesReceived(now: start + .seconds(110)) == .schedule(start + .seconds(120)))
        #expect(deadlines.expire(now: start + .seconds(120)) == .requestTimeout(.head))
    }

    @Test func anIdleKeepAliveConnectionIsClosedWithoutAWord() {
        var deadlines = make()
        _ = deadlines.headReceived(now: start)
        _ = deadlines.requestReceived()
        _ = deadlines.responseSent(now: start + .seconds(1))
        #expect(deadlines.expire(now: start + .seconds(20)) == nil)
        #expect(deadlines.expire(now: start + .seconds(21)) == .close(.idle))
    }

    @Test func bytesDuringTheResponseStartTheNextHeadAtOnce() {
        var deadlines = make()
        _ = deadlines.headReceived(now: start)
        _ = deadlines.requestReceived()
        #expect(deadlines.bytesReceived(now: start + .seconds(1)) == .keep)
        #expect(deadlines.responseSent(now: start + .seconds(2)) == .schedule(start + .seconds(12)))
        #expect(deadlines.expire(now: start + .seconds(12)) == .requestTimeout(.head))
    }

    @Test func nothingExpiresAfterTheUpgrade() {
        var deadlines = make()
        _ = deadlines.headReceived(now: start)
        _ = deadlines.requestReceived()
        #expect(deadlines.finish() == .cancel)
        #expect(deadlines.finish() == .keep)
        #expect(deadlines.bytesReceived(now: start + .seconds(5)) == .keep)
        #expect(deadlines.expire(now: start + .seconds(10_000)) == nil)
    }
}
