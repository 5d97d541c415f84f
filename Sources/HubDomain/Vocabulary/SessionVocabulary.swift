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
///
/// A value holds the session's lines already split into words, so the reviews of every
/// participant of one session tokenize each line once (``init(_:)``, then ``reviews(of:)``).
public struct SessionVocabulary: Sendable {
    /// The most words one participant reviews in one session.
    public static let maxWordsPerSession = 100

    /// Quality of a word a recast brought in, by whether the speaker accepted the recast.
    static func correctedQuality(accepted: Bool) -> Int { accepted ? 2 : 1 }
    /// Quality of a word the participant said themselves.
    static let spokenQuality = 5
    /// Quality of a word the participant only saw in someone else's line.
    static let seenQuality = 4

    private let session: EndedSession
    /// Each line's distinct words, sorted, in transcript order.
    private let lineWords: [[String]]
    /// Line id → index of its first line with that id.
    private let lineIndex: [String: Int]

    /// Splits the lines of `session` into words once, for the reviews of all its participants.
    public init(_ session: EndedSession) {
        self.session = session
        lineWords = session.lines.map { Self.orderedWords(in: $0.textNative) }
        var index = [String: Int](minimumCapacity: session.lines.count)
        for (offset, line) in session.lines.enumerated() where index[line.id] == nil { index[line.id] = offset }
        lineIndex = index
    }

    /// The reviewed words of `userId` in `session`, word → quality.
    public static func reviews(of userId: String, in session: EndedSession) -> [String: Int] {
        SessionVocabulary(session).reviews(of: userId)
    }

    /// What one participant's occurrences of a word add up to.
    private struct Occurrences {
        /// The lowest quality of a correction that brought the word in, if any.
        var corrected: Int?
        /// The highest quality of any other occurrence, if any.
        var succeeded: Int?

        mutating func add(_ quality: Int, correction: Bool) {
            if correction {
                corrected = min(corrected ?? quality, quality)
            } else {
                succeeded = max(succeeded ?? quality, quality)
            }
        }
    }

    /// The reviewed words of `userId`, word → quality.
    public func reviews(of userId: String) -> [String: Int] {
        var words: [String: Occurrences] = [:]
        var order: [String] = []  // first occurrence
        func note(_ word: String, _ quality: Int, correction: Bool) {
            var isNew = false
            words[word, default: { isNew = true; return Occurrences() }()].add(quality, correction: correction)
            if isNew { order.append(word) }
        }
        var removedByRecast: [String: Set<String>] = [:]  // line id → words a recast took out
        for recast in session.recasts where recast.speakerId == userId {
            let lineAt = lineIndex[recast.lineId]
            let original = lineAt.map { lineWords[$0] } ?? []
            let fixed = Self.orderedWords(in: recast.correctedText)
            let originalSet = Set(original), fixedSet = Set(fixed)
            for word in fixed where !originalSet.contains(word) {
                note(word, Self.correctedQuality(accepted: recast.accepted), correction: true)
            }
            removedByRecast[recast.lineId, default: []].formUnion(original.filter { !fixedSet.contains($0) })
        }
        for (offset, line) in session.lines.enumerated() {
            let quality = line.speakerId == userId ? Self.spokenQuality : Self.seenQuality
            if let removed = removedByRecast[line.id] {
                for word in lineWords[offset] where !removed.contains(word) { note(word, quality, correction: false) }
            } else {
                for word in lineWords[offset] { note(word, quality, correction: false) }
            }
        }
        // The bound keeps corrected words first, then spoken ones, then the rest, each in order
        // of first occurrence.
        var ranked: [[(word: String, quality: Int)]] = [[], [], []]
        for word in order {
            guard let occurrences = words[word] else { continue }
            if let corrected = occurrences.corrected {
                ranked[0].append((word, corrected))
            } else if let succeeded = occurrences.succeeded {
                ranked[succeeded == Self.spokenQuality ? 1 : 2].append((word, succeeded))
            }
        }
        var result: [String: Int] = [:]
        result.reserveCapacity(min(order.count, Self.maxWordsPerSession))
        for (word, quality) in ranked.joined().prefix(Self.maxWordsPerSession) { result[word] = quality }
        return result
    }

    /// The distinct words of `text`, sorted (a deterministic order for the bound).
    static func orderedWords(in text: String) -> [String] {
        WordTokenizer.words(in: text).sorted()
    }
}
