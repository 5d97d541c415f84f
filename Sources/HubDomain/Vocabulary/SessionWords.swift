/// The distinct words of a session's lines (``WordTokenizer``'s, of `textNative`), numbered in
/// order of first occurrence, and each line's words as those numbers, sorted by word.
///
/// A live session splits each line into words once, as it records it (for the new-vocabulary
/// count of the live stats), and hands the result to the history writer with the
/// ``EndedSession``, whose ``SessionVocabulary`` reviews every participant's words from it
/// instead of splitting the whole transcript again.
public struct SessionWords: Sendable, Equatable {
    /// The session's distinct words, in order of first occurrence.
    public private(set) var words: [String] = []
    /// Word → its number in ``words``.
    private(set) var numbers: [String: Int] = [:]
    /// Each line's distinct words (numbers into ``words``), sorted by word, in transcript order.
    public private(set) var lines: [[Int]] = []

    /// No line yet.
    public init() {}

    /// The words of `lines`, in order.
    public init(lines: [DialogLine]) {
        for line in lines { add(line.textNative) }
    }

    /// How many distinct words the session has.
    public var count: Int { words.count }

    /// Whether `word` occurred in a line.
    public func contains(_ word: String) -> Bool { numbers[word] != nil }

    /// The number of `word`, if it occurred in a line.
    public func number(of word: String) -> Int? { numbers[word] }

    /// Adds the next line's text; returns the words new to the session, sorted.
    @discardableResult
    public mutating func add(_ text: String) -> [String] {
        var new: [String] = []
        let line = Self.orderedWords(in: text).map { word in
            if let known = numbers[word] { return known }
            numbers[word] = words.count
            words.append(word)
            new.append(word)
            return words.count - 1
        }
        lines.append(line)
        return new
    }

    /// How many of the session's words `known` holds.
    public func countKnown(_ known: Set<String>) -> Int {
        known.count < words.count ? known.reduce(0) { $0 + (numbers[$1] == nil ? 0 : 1) }
            : words.reduce(0) { $0 + (known.contains($1) ? 1 : 0) }
    }

    /// The session's words that `known` does not hold.
    public func unknown(to known: Set<String>) -> Set<String> {
        Set(words.lazy.filter { !known.contains($0) })
    }

    /// The distinct words of `text`, sorted (a deterministic order for the review's bound).
    public static func orderedWords(in text: String) -> [String] {
        WordTokenizer.sortedWords(in: text)
    }
}
