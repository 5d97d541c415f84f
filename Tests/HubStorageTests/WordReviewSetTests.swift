import HubDomain
@testable import HubStorage
import Testing

@Suite("Word review sets: the stored value of a learner's SM-2 states")
struct WordReviewSetTests {
    static let states: [String: WordReview] = [
        "café": WordReview(easeFactor: 2.36, intervalDays: 6, repetitions: 2, nextReviewAt: 1_700_000_000_123,
                           lastReviewedAt: 1_699_000_000_456),
        "je": WordReview(easeFactor: 1.3, intervalDays: 0, repetitions: 0, nextReviewAt: -5, lastReviewedAt: -5),
        "\"quoted\\\u{1}": WordReview(easeFactor: 2.5, intervalDays: 3_000_000_000, repetitions: Int(Int32.max) + 7,
                                      nextReviewAt: .max, lastReviewedAt: .min),
        "": WordReview.first(quality: 5, at: 42),
    ]

    static func decode(_ bytes: [UInt8], into states: inout [String: WordReview]) throws {
        try bytes.withUnsafeBytes { try WordReviewSet.decode($0, into: &states) }
    }

    @Test("Every state reads back exactly, whatever its word and values")
    func roundTrip() throws {
        let bytes = WordReviewSet.encode(Self.states.sorted { $0.key < $1.key })
        #expect(bytes.first == WordReviewSet.formatVersion)
        var read: [String: WordReview] = [:]
        try Self.decode(bytes, into: &read)
        #expect(read == Self.states)
        #expect(WordReviewSet.encode(Self.states.sorted { $0.key < $1.key }) == bytes, "the same states, the same value")
    }

    @Test("A later set replaces the states of the words it holds and keeps the others")
    func laterSetWins() throws {
        var states: [String: WordReview] = [:]
        try Self.decode(WordReviewSet.encode(Self.states.sorted { $0.key < $1.key }), into: &states)
        let newer = WordReview.first(quality: 4, at: 9_000)
        try Self.decode(WordReviewSet.encode([(key: "je", value: newer)]), into: &states)
        #expect(states["je"] == newer)
        #expect(states["café"] == Self.states["café"])
        #expect(states.count == Self.states.count)
        // A state reviewed earlier than the one held (a row an older node wrote) does not replace it.
        let older = WordReview.first(quality: 1, at: 8_000)
        try Self.decode(WordReviewSet.encode([(key: "je", value: older)]), into: &states)
        #expect(states["je"] == newer)
        let sameTime = WordReview.first(quality: 1, at: 9_000)
        try Self.decode(WordReviewSet.encode([(key: "je", value: sameTime)]), into: &states)
        #expect(states["je"] == sameTime, "of two reviewed at the same time, the one read last")
    }

    @Test("A value it did not write is refused and changes nothing: empty, unknown format, cut short, not UTF-8")
    func refusesForeignValues() throws {
        let bytes = WordReviewSet.encode(Self.states.sorted { $0.key < $1.key })
        let cuts: [[UInt8]] = [[], [WordReviewSet.formatVersion + 1] + bytes.dropFirst(), Array(bytes.dropLast()),
                               Array(bytes.prefix(2)),
                               [WordReviewSet.formatVersion, 1, 0, 0, 0, 0xFF] + [UInt8](repeating: 0, count: 40)]
        for cut in cuts {
            var states = ["kept": WordReview.first(quality: 3, at: 1)]
            #expect(throws: StorageError.self) { try Self.decode(cut, into: &states) }
            #expect(states.count == 1)
        }
        var empty: [String: WordReview] = [:]
        try Self.decode(WordReviewSet.encode([]), into: &empty)
        #expect(empty.isEmpty, "a set of no states is one format byte")
    }
}
