import NIOCore

/// Sizes each accepted connection's receive buffers like NIO's adaptive allocator — twice as
/// big after a read that filled the buffer, half as big after two reads in a row that used at
/// most half of it, always a power of two between the bounds — in 4 bytes.
///
/// A channel keeps its receive allocator as `any RecvByteBufferAllocator`. NIO's
/// `AdaptiveRecvByteBufferAllocator` is larger than an existential's inline room, so every
/// connection's first read gave it a heap box of its own (about 64 bytes per connection,
/// idle or not); this one fits inline.
struct CompactReceiveAllocator: RecvByteBufferAllocator {
    /// log2 of the smallest, largest and next buffer size.
    private let minimumShift: UInt8
    private let maximumShift: UInt8
    private var nextShift: UInt8
    /// The last read used at most half of its buffer.
    private var shrinkPending = false

    /// An allocator starting at `initial` bytes, between `minimum` and `maximum` (each rounded to
    /// a power of two: the bounds outward, `initial` down; at most 1 GiB).
    init(minimum: Int, initial: Int, maximum: Int) {
        precondition(minimum >= 1 && minimum <= initial && initial <= maximum, "need 1 ≤ minimum ≤ initial ≤ maximum")
        func floorShift(_ value: Int) -> UInt8 { UInt8(Int.bitWidth - 1 - min(value, 1 << 30).leadingZeroBitCount) }
        let minimumShift = floorShift(minimum)
        var maximumShift = floorShift(maximum)
        if maximum > 1 << maximumShift, maximumShift < 30 { maximumShift += 1 }
        self.minimumShift = minimumShift
        self.maximumShift = maximumShift
        self.nextShift = min(max(floorShift(initial), minimumShift), maximumShift)
    }

    /// The size of the next buffer.
    var nextSize: Int { 1 << Int(nextShift) }

    func buffer(allocator: ByteBufferAllocator) -> ByteBuffer {
        allocator.buffer(capacity: nextSize)
    }

    func nextBufferSize() -> Int? {
        nextSize
    }

    /// Notes how much the last read brought; true when the next buffer is bigger.
    mutating func record(actualReadBytes: Int) -> Bool {
        let size = nextSize
        if actualReadBytes >= size, nextShift < maximumShift {
            nextShift += 1
            shrinkPending = false
            return true
        }
        if actualReadBytes <= size / 2, nextShift > minimumShift {
            if shrinkPending {
                nextShift -= 1
                shrinkPending = false
            } else {
                shrinkPending = true
            }
        } else {
            shrinkPending = false
        }
        return false
    }
}
