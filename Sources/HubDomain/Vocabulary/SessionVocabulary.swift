/// The words one participant reviewed in one ended session, each with an SM-2 quality
/// (docs/API.md, "Vocabulary and SM-2"):
///
/// | how the word occurred | quality |
/// |---|---|
/// | in a recast of the participant's line (a word the recast brought in), recast accepted | 2 |
/// | the same, recast not accepted | 1 |
/// | in a line the participant spoke, not taken out by a recast of that line | 5 |
/// | only in other participants' lines | 4 |
///
/// A word a recast brought in gets its correction's quality (the lowest, when corrected more
/// than once) however else it occurred; any other word the highest of its occurrences. Words are ``WordTokenizer``'s
/// (lowercased, punctuation stripped) of `textNative`. At most ``maxWordsPerSession`` words
/// per participant and session: corrected words first, then spoken ones, then the rest, each
/// in order of first occurrence (recasts, then lines in transcript order; a line's words
/// alphabetically).
public enum SessionVocabulary {
    /// The most words one participant reviews in one session.
    public static let maxWordsPerSession = 100

    /// Quality of a word a recast brought in, by whether the speaker accepted the recast.
    static func correctedQuality(accepted: Bool) -> Int { accepted ? 2 : 1 }
    /// Quality of a word the participant said themselves.
    static let spokenQuality = 5
    /// Quality of a word the participant only saw in someone else's line.
    static let seenQuality = 4

    /// The reviewed words of `userId` in `session`, word → quality.
    public static func reviews(of userId: String, in session: EndedSession) -> [String: Int] {
        var corrected: [String: Int] = [:]  // word → lowest correction quality
        var succeeded: [String: Int] = [:]  // word → highest other quality
        var order: [String] = []            // first occurrence
        func note(_ word: String, _ quality: Int, correction: Bool) {
            if corrected[word] == nil && succeeded[word] == nil { order.append(word) }
            if correction {
                corrected[word] = min(corrected[word] ?? quality, quality)
            } else {
                succeeded[word] = max(succeeded[word] ?? quality, quality)
            }
        }
        var removedByRecast: [String: Set<String>] = [:]  // line id → words a recast took out
        let linesById = Dictionary(session.lines.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for recast in session.recasts where recast.speakerId == userId {
            let original = linesById[recast.lineId].map { orderedWords(in: $0.textNative) } ?? []
            let fixed = orderedWords(in: recast.correctedText)
            let originalSet = Set(original), fixedSet = Set(fixed)
            for word in fixed where !originalSet.contains(word) {
                note(word, correctedQuality(accepted: recast.accepted), correction: true)
            }
            removedByRecast[recast.lineId, default: []].formUnion(original.filter { !fixedSet.contains($0) })
        }
        for line in session.lines {
            let spoken = line.speakerId == userId
            let removed = removedByRecast[line.id] ?? []
            for word in orderedWords(in: line.textNative) where !removed.contains(word) {
                note(word, spoken ? spokenQuality : seenQuality, correction: false)
            }
        }
        // The bound keeps corrected words first, then spoken ones, then the rest.
        func rank(_ word: String) -> Int { corrected[word] != nil ? 0 : succeeded[word] == spokenQuality ? 1 : 2 }
        let kept = order.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }
            .prefix(maxWordsPerSession)
        var result: [String: Int] = [:]
        for (_, word) in kept { result[word] = corrected[word] ?? succeeded[word] }
        return result
    }

    /// The distinct words of `text`, sorted (a deterministic order for the bound).
    static func orderedWords(in text: String) -> [String] {
        WordTokenizer.words(in: text).sorted()
    }
}
