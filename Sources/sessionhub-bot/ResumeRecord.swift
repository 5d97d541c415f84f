/// One reconnection of a player: what it asked to resume from and what the hub replayed.
struct ResumeRecord: Sendable, Encodable, Equatable {
    /// Who resumed.
    var userId: String
    /// The `lastSeq` sent with `resume`.
    var lastSeq: Int
    /// The highest seq any other player of this run had applied when `resume` was sent: the
    /// replay must reach at least this far.
    var othersSeq: Int
    /// `replay` or `snapshot`; nil until `resumed` arrives.
    var mode: String?
    /// `resumed.replayed`.
    var replayed: Int = 0
    /// The seqs that followed `resumed` as the replay, in arrival order.
    var replayedSeqs: [Int] = []
    /// Whether the replay was exactly `lastSeq+1 … lastSeq+replayed` and reached `othersSeq`.
    var complete = false

    private enum CodingKeys: String, CodingKey {
        case userId, lastSeq, othersSeq, mode, replayed, replayedSeqs, complete
    }

    /// Every field, `mode` null until `resumed` arrives.
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(userId, forKey: .userId)
        try c.encode(lastSeq, forKey: .lastSeq)
        try c.encode(othersSeq, forKey: .othersSeq)
        try c.encode(mode, forKey: .mode)
        try c.encode(replayed, forKey: .replayed)
        try c.encode(replayedSeqs, forKey: .replayedSeqs)
        try c.encode(complete, forKey: .complete)
    }
}
