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
    /// The session's distinct words and each line's words (numbers into them).
    private let words: SessionWords
    /// Line id → index of its first line with that id.
    private let lineIndex: [String: Int]

    /// Splits the lines of `session` into words once, for the reviews of all its participants
    /// (or takes the split the live session made as it recorded them, ``EndedSession/words``):
    /// each word is hashed once, and a participant's review then works on word numbers.
    public init(_ session: EndedSession) {
        self.session = session
        if let words = session.words, words.lines.count == session.lines.count {
            self.words = words
        } else {
            self.words = SessionWords(lines: session.lines)
        }
        var index = [String: Int](minimumCapacity: session.lines.count)
        for (offset, line) in session.lines.enumerated() where index[line.id] == nil { index[line.id] = offset }
        lineIndex = index
    }

    /// The reviewed words of `userId` in `session`, word → quality.
    public static func reviews(of userId: String, in session: EndedSession) -> [String: Int] {
        SessionVocabulary(session).reviews(of: userId)
    }

    /// One participant's occurrences of the session's words, by word index.
    private struct Occurrences {
        /// No quality: the word did not occur that way.
        static let none = -1
        /// Per word: the lowest quality of a correction that brought it in.
        var corrected: [Int]
        /// Per word: the highest quality of any other occurrence.
        var succeeded: [Int]
        /// Word indices in order of first occurrence.
        var order: [Int] = []

        init(count: Int) {
            corrected = Array(repeating: Self.none, count: count)
            succeeded = Array(repeating: Self.none, count: count)
        }

        /// Makes room for a word only a recast has (its index is the next one).
        mutating func grow() {
            corrected.append(Self.none)
            succeeded.append(Self.none)
        }

        mutating func add(_ word: Int, _ quality: Int, correction: Bool) {
            if corrected[word] == Self.none, succeeded[word] == Self.none { order.append(word) }
            if correction {
                corrected[word] = corrected[word] == Self.none ? quality : min(corrected[word], quality)
            } else {
                succeeded[word] = max(succeeded[word], quality)
            }
        }
    }

    /// The reviewed words of `userId`, word → quality.
    public func reviews(of userId: String) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: reviewList(of: userId).lazy.map { ($0.word, $0.quality) })
    }

    /// The reviewed words of `userId` with their qualities, each word once: corrected words
    /// first, then spoken ones, then the rest (the order of the bound).
    public func reviewList(of userId: String) -> [(word: String, quality: Int)] {
        var occurrences = Occurrences(count: words.count)
        // Words of recasts that no line has, indexed after the session's own.
        var recastWords: [String] = []
        var recastWordIndex: [String: Int] = [:]
        func index(of word: String) -> Int {
            if let known = words.number(of: word) ?? recastWordIndex[word] { return known }
            recastWordIndex[word] = words.count + recastWords.count
            recastWords.append(word)
            occurrences.grow()
            return words.count + recastWords.count - 1
        }
        var removedByRecast: [String: Set<Int>] = [:]  // line id → words a recast took out
        for recast in session.recasts where recast.speakerId == userId {
            let original = lineIndex[recast.lineId].map { words.lines[$0] } ?? []
            let fixed = SessionWords.orderedWords(in: recast.correctedText).map(index(of:))
            let originalSet = Set(original), fixedSet = Set(fixed)
            for word in fixed where !originalSet.contains(word) {
                occurrences.add(word, Self.correctedQuality(accepted: recast.accepted), correction: true)
            }
            removedByRecast[recast.lineId, default: []].formUnion(original.filter { !fixedSet.contains($0) })
        }
        for (offset, line) in session.lines.enumerated() {
            let quality = line.speakerId == userId ? Self.spokenQuality : Self.seenQuality
            if !removedByRecast.isEmpty, let removed = removedByRecast[line.id] {
                for word in words.lines[offset] where !removed.contains(word) { occurrences.add(word, quality, correction: false) }
            } else {
                for word in words.lines[offset] { occurrences.add(word, quality, correction: false) }
            }
        }
        // The bound keeps corrected words first, then spoken ones, then the rest, each in order
        // of first occurrence.
        var ranked: [[(word: Int, quality: Int)]] = [[], [], []]
        for word in occurrences.order {
            let corrected = occurrences.corrected[word], succeeded = occurrences.succeeded[word]
            if corrected != Occurrences.none {
                ranked[0].append((word, corrected))
            } else {
                ranked[succeeded == Self.spokenQuality ? 1 : 2].append((word, succeeded))
            }
        }
        return ranked.joined().prefix(Self.maxWordsPerSession).map { word, quality in
            (word < words.count ? words.words[word] : recastWords[word - words.count], quality)
        }
    }
}
