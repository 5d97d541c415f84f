import NIOCore
@testable import WebSocketTransport
import Testing

/// The accepted connections' receive-buffer sizing: NIO's adaptive rule, in an inline value.
@Suite("Compact receive allocator")
struct CompactReceiveAllocatorTests {
    @Test("Fits an existential's inline room, so a channel keeps it without a heap box")
    func fitsInline() {
        #expect(MemoryLayout<CompactReceiveAllocator>.size <= 3 * MemoryLayout<Int>.size)
    }

    @Test("Bounds round outward and the start down to powers of two")
    func rounding() {
        let sizer = CompactReceiveAllocator(minimum: 100, initial: 300, maximum: 70_000)
        #expect(sizer.nextSize == 256)
        var grow = sizer
        while grow.record(actualReadBytes: grow.nextSize) {}
        #expect(grow.nextSize == 131_072, "70,000 rounds up to 2^17")
        var shrink = sizer
        for _ in 0..<40 { _ = shrink.record(actualReadBytes: 0) }
        #expect(shrink.nextSize == 64, "100 rounds down to 2^6")
    }

    @Test("A full read doubles the next buffer, up to the maximum; true only when it grew")
    func grows() {
        var sizer = CompactReceiveAllocator(minimum: 64, initial: 256, maximum: 1024)
        let grew1 = sizer.record(actualReadBytes: 256)
        #expect(grew1)
        #expect(sizer.nextSize == 512)
        let grew2 = sizer.record(actualReadBytes: 600)
        #expect(grew2)
        #expect(sizer.nextSize == 1024)
        let grew3 = sizer.record(actualReadBytes: 1024)
        #expect(!grew3)
        #expect(sizer.nextSize == 1024)
        #expect(sizer.buffer(allocator: ByteBufferAllocator()).capacity >= 1024)
    }

    @Test("Two small reads in a row halve it, down to the minimum; a read in between resets that")
    func shrinks() {
        var sizer = CompactReceiveAllocator(minimum: 64, initial: 256, maximum: 1024)
        let grew4 = sizer.record(actualReadBytes: 100)
        #expect(!grew4)
        #expect(sizer.nextSize == 256, "one small read is not enough")
        let grew5 = sizer.record(actualReadBytes: 200)
        #expect(!grew5)
        #expect(sizer.nextSize == 256, "a read over half the buffer resets the count")
        _ = sizer.record(actualReadBytes: 10)
        _ = sizer.record(actualReadBytes: 10)
        #expect(sizer.nextSize == 128)
        for _ in 0..<10 { _ = sizer.record(actualReadBytes: 0) }
        #expect(sizer.nextSize == 64)
        #expect(sizer.nextBufferSize() == 64)
    }
}
