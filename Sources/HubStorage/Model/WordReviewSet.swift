import HubDomain

/// A learner's SM-2 word states in one language, stored as one value (a row of
/// `word_review_sets`) instead of a row per word.
///
/// An ended session writes one set per learner holding the states it changed; a learner's
/// states are their sets (and the rows of the per-word table older versions wrote) merged, the
/// state of a word reviewed last winning, and of two reviewed at the same time the one read last
/// (``decode(_:into:)``; readers go through sets in the order they were written). That is what
/// the per-word upsert it replaces would have left: a state written for a word is never older
/// than the one it replaces (``WordReview/reviewed(quality:at:)``). Once a learner has ``mostSets`` sets in a language,
/// the next write merges them all into one (the stores' "merge"), so a read decodes a bounded
/// number of values and a learner's write costs the words they met, not their vocabulary.
///
/// The value is binary, little-endian: a format byte (``formatVersion``), then for each state,
/// in the order given: the word's UTF-8 length (`UInt32`) and bytes, the ease factor (IEEE 754
/// `Float64` bits), the interval in days, the repetitions, the next review and the last review
/// (epoch ms), each an `Int64`. A fresh learner's first session (some 80 words) fits in about
/// 4 KB.
package enum WordReviewSet {
    /// The layout written by ``encode(_:)``.
    package static let formatVersion: UInt8 = 1

    /// A learner's sets in one language after which the next write merges them into one.
    package static let mostSets = 8

    /// Bytes per state besides its word: the word's length and five 8-byte fields.
    private static let fixedBytesPerState = 4 + 5 * 8

    /// The stored value of `states`, in their order (callers sort them, so a value is the same
    /// for the same states).
    package static func encode(_ states: some Sequence<(key: String, value: WordReview)>) -> [UInt8] {
        var out: [UInt8] = [formatVersion]
        out.reserveCapacity(1 + states.underestimatedCount * (fixedBytesPerState + 8))
        for (word, state) in states {
            let utf8 = word.utf8
            append(UInt64(utf8.count), bytes: 4, to: &out)
            out.append(contentsOf: utf8)
            append(state.easeFactor.bitPattern, bytes: 8, to: &out)
            append(UInt64(bitPattern: Int64(state.intervalDays)), bytes: 8, to: &out)
            append(UInt64(bitPattern: Int64(state.repetitions)), bytes: 8, to: &out)
            append(UInt64(bitPattern: state.nextReviewAt), bytes: 8, to: &out)
            append(UInt64(bitPattern: state.lastReviewedAt), bytes: 8, to: &out)
        }
        return out
    }

    /// Adds the states of the stored value `bytes` to `states`, replacing those of the same
    /// words reviewed at the same time or earlier (``merge(_:of:into:)``). Throws ``StorageError``
    /// for a value this layout did not write (an unknown format byte, a truncated state, a word
    /// that is not UTF-8), leaving `states` as it was.
    package static func decode(_ bytes: UnsafeRawBufferPointer, into states: inout [String: WordReview]) throws {
        guard let format = bytes.first else { throw StorageError("an empty word review set") }
        guard format == formatVersion else { throw StorageError("a word review set in unknown format \(format)") }
        var decoded: [(String, WordReview)] = []
        var offset = 1
        while offset < bytes.count {
            guard offset + 4 <= bytes.count else { throw truncated(at: offset) }
            let length = Int(read(bytes, at: offset, bytes: 4))
            let wordStart = offset + 4, fieldsStart = wordStart + length
            guard fieldsStart + 5 * 8 <= bytes.count else { throw truncated(at: offset) }
            guard let word = String(validating: UnsafeRawBufferPointer(rebasing: bytes[wordStart..<fieldsStart]), as: UTF8.self) else {
                throw StorageError("a word review set with a word that is not UTF-8 at byte \(offset)")
            }
            let state = WordReview(
                easeFactor: Double(bitPattern: read(bytes, at: fieldsStart, bytes: 8)),
                intervalDays: Int(truncatingIfNeeded: Int64(bitPattern: read(bytes, at: fieldsStart + 8, bytes: 8))),
                repetitions: Int(truncatingIfNeeded: Int64(bitPattern: read(bytes, at: fieldsStart + 16, bytes: 8))),
                nextReviewAt: Int64(bitPattern: read(bytes, at: fieldsStart + 24, bytes: 8)),
                lastReviewedAt: Int64(bitPattern: read(bytes, at: fieldsStart + 32, bytes: 8)))
            decoded.append((word, state))
            offset = fieldsStart + 5 * 8
        }
        for (word, state) in decoded { merge(state, of: word, into: &states) }
    }

    /// Puts `state` of `word` into `states` unless the state there was reviewed later.
    package static func merge(_ state: WordReview, of word: String, into states: inout [String: WordReview]) {
        if let held = states[word], held.lastReviewedAt > state.lastReviewedAt { return }
        states[word] = state
    }

    private static func truncated(at offset: Int) -> StorageError {
        StorageError("a word review set cut short at byte \(offset)")
    }

    private static func append(_ value: UInt64, bytes count: Int, to out: inout [UInt8]) {
        for index in 0..<count { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
    }

    private static func read(_ bytes: UnsafeRawBufferPointer, at offset: Int, bytes count: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<count { value |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
        return value
    }
}
