/// Checks the `seq` of a session's broadcasts as one member receives them (section 5 of
/// `docs/PROTOCOL.md`): after a snapshot at `seq` S, broadcasts must arrive as S+1, S+2, … with
/// no gap and no duplicate. Keep one per member across reconnections: ``lastSeq`` is the
/// `lastSeq` of a `resume`.
public struct SeqTracker: Sendable, Equatable {
    /// What one received `seq` means.
    public enum Outcome: Sendable, Equatable {
        /// The expected next broadcast.
        case next
        /// Broadcasts were skipped: `expected` was due, `received` came. The tracker moves on to `received`.
        case gap(expected: Int, received: Int)
        /// Already applied (or older): the broadcast must be ignored.
        case duplicate(Int)
        /// No snapshot yet, so there is nothing to compare with.
        case beforeSnapshot(Int)
    }

    /// The highest `seq` applied; nil before the first snapshot.
    public private(set) var lastSeq: Int?

    /// A tracker that has seen no snapshot yet.
    public init() {}

    /// A tracker whose snapshot included everything up to `seq`.
    public init(after seq: Int) {
        lastSeq = seq
    }

    /// Starts over from a snapshot (`joined`, or `resumed` in snapshot mode).
    public mutating func restart(after seq: Int) {
        lastSeq = seq
    }

    /// Records a received broadcast and says whether it was the expected one.
    public mutating func record(_ seq: Int) -> Outcome {
        guard let last = lastSeq else { return .beforeSnapshot(seq) }
        if seq <= last { return .duplicate(seq) }
        lastSeq = seq
        return seq == last + 1 ? .next : .gap(expected: last + 1, received: seq)
    }
}
