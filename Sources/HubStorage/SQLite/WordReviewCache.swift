import HubDomain

/// The stored SM-2 states of the words that recently active learners met, kept by
/// ``SQLiteStore`` so that an ended session's review (``SQLiteStore/reviewWords(_:userId:language:session:vocabulary:changes:)``)
/// reads the learner's stored states (their `word_review_sets`, ``WordReviewSet``) only when it
/// meets a word the cache has not seen.
///
/// A learner who plays again meets mostly the words of their last sessions, and most of them are
/// not due (a state that does not change is not written), so without the cache a session's end
/// spends more time reading those states than writing anything. The cache knows, per learner and
/// language, the state of each word it has seen (or that the word has none), exactly as stored:
/// the store is the file's only writer of word states (the hub holds its data directory), and
/// it records in the cache only what a transaction read and wrote once that transaction has
/// committed, under the connection's lock (``Changes``). A failed write leaves the cache as it was.
///
/// It also keeps each such learner's whole set of known words (`known_words`) once read
/// (``knownWords(for:)``), which a player's every join asks for: the words a committed
/// transaction added are added to it (``Changes/noteKnownWords(_:for:)``), so it stays the
/// table's contents without being read again, and the hub answers a join from memory without
/// a trip to the storage thread (``SQLiteStore/knownWordsInMemory(userId:language:)``).
///
/// A learner's states are held either word by word (those met lately) or whole: a review that
/// meets a word the cache does not hold reads all of the learner's states in the language (their
/// few sets) and keeps them whole when there are at most ``wholeSetLimit``; from then on a word
/// the cache does not hold has no state, so the learner's reviews read nothing.
///
/// Bounded by ``capacity`` word states (about 105 bytes each, measured), a known word counting
/// as a quarter of one (about 27 bytes); past it, the learners used least recently are dropped
/// until a quarter of the room is free. A capacity of 0 turns it off.
struct WordReviewCache {
    /// One learner's words in one language.
    struct Key: Hashable {
        var userId: String
        var language: String
    }

    /// How much of a learner's stored word states the cache holds.
    enum Coverage: Equatable {
        /// Some words: a word not held is unknown.
        case partial
        /// Every state: a word not held has none.
        case whole
        /// Some words, and the learner has more states than ``WordReviewCache/wholeSetLimit``:
        /// a review that meets a word not held reads the learner's states again and keeps only
        /// the words it met.
        case tooLargeForWhole
    }

    /// What one write transaction read and wrote of the learners' word states: a word's state,
    /// or nil when it has none. Recorded in the cache only once the transaction commits.
    struct Changes {
        fileprivate(set) var states: [Key: [String: WordReview?]] = [:]
        /// Learners whose states the transaction kept whole, or found too many to keep whole.
        fileprivate(set) var coverage: [Key: Coverage] = [:]
        /// Words the transaction added to `known_words`, per learner.
        fileprivate(set) var knownWords: [Key: Set<String>] = [:]

        /// Whether the transaction noted nothing.
        var isEmpty: Bool { states.isEmpty && coverage.isEmpty && knownWords.isEmpty }

        /// Notes `states` of `key` (read or written by the transaction).
        mutating func note(_ states: [String: WordReview?], for key: Key) {
            self.states[key, default: [:]].merge(states) { _, new in new }
        }

        /// Notes that the transaction read every state of `key` (noted in ``note(_:for:)``), or
        /// that it found more than ``WordReviewCache/wholeSetLimit``.
        mutating func note(_ coverage: Coverage, for key: Key) {
            self.coverage[key] = coverage
        }

        /// Notes `words` added to the known words of `key` (those known already included).
        mutating func noteKnownWords(_ words: Set<String>, for key: Key) {
            knownWords[key, default: []].formUnion(words)
        }
    }

    /// A learner's word states, known words (nil until read whole) and when the cache last used them.
    private struct Entry {
        var states: [String: WordReview?] = [:]
        var coverage = Coverage.partial
        var known: Set<String>?
        var lastUsed: UInt64

        /// Room taken, in word states: a known word is a quarter of one (``WordReviewCache/knownWordsPerState``).
        var size: Int { states.count + ((known?.count ?? 0) + knownWordsPerState - 1) / knownWordsPerState }
    }

    /// The default bound, in word states: about 42 MB once full, the words of some 4,000 learners
    /// who each met 80 and know as many (the load test's 3,000 learners fit; at 250,000 they
    /// did not, and the cache dropped each learner before they played again).
    static let defaultCapacity = 400_000

    /// Known words that take the room of one word state: a word in a set is about 27 bytes of
    /// memory, a word's state in a dictionary about 105.
    static let knownWordsPerState = 4

    /// The most word states kept, over all learners; 0: nothing is kept.
    let capacity: Int
    private var entries: [Key: Entry] = [:]
    private var uses: UInt64 = 0
    /// Room taken now, in word states (known words count a quarter each).
    private(set) var count = 0

    /// The most states of one learner in one language that the cache keeps whole
    /// (``Coverage/whole``): a 64th of the capacity (6,250 by default), so that one learner
    /// cannot crowd out the others. A learner past it has all of their states read (and
    /// decoded) again whenever a review meets a word the cache does not hold.
    var wholeSetLimit: Int { capacity / 64 }

    init(capacity: Int = WordReviewCache.defaultCapacity) {
        self.capacity = max(0, capacity)
    }

    /// The states the cache knows of `words` for `key` (a word without a state is known too, and
    /// left out of `known`), the words it does not know, which the caller reads, and how much
    /// of the learner's states it holds.
    mutating func lookUp(_ words: some Sequence<String>, for key: Key)
        -> (known: [String: WordReview], unknown: [String], coverage: Coverage) {
        guard var entry = entries[key] else { return ([:], Array(words), .partial) }
        var known: [String: WordReview] = [:], unknown: [String] = []
        for word in words {
            switch entry.states[word] {
            case .none: if entry.coverage != .whole { unknown.append(word) }
            case .some(.none): continue
            case .some(.some(let state)): known[word] = state
            }
        }
        uses += 1
        entry.lastUsed = uses
        entries[key] = entry
        return (known, unknown, entry.coverage)
    }

    /// Records what a committed transaction read and wrote. Added known words go only to a
    /// learner whose whole set is held (a set read later comes from the table, with them).
    mutating func record(_ changes: Changes) {
        guard capacity > 0 else { return }
        for (key, states) in changes.states {
            update(key) { $0.states.merge(states) { _, new in new } }
        }
        for (key, coverage) in changes.coverage {
            update(key) { $0.coverage = coverage }
        }
        for (key, words) in changes.knownWords where entries[key]?.known != nil {
            update(key) { $0.known?.formUnion(words) }
        }
        if count > capacity { evict() }
    }

    /// The known words of `key`, when the whole set is held.
    mutating func knownWords(for key: Key) -> Set<String>? {
        guard let known = entries[key]?.known else { return nil }
        uses += 1
        entries[key]?.lastUsed = uses
        return known
    }

    /// Keeps `words`, the whole set of `key`'s known words just read from the table (under the
    /// connection's lock, so that no write comes between the read and this).
    mutating func keep(knownWords words: Set<String>, for key: Key) {
        guard capacity > 0 else { return }
        update(key) { $0.known = words }
        if count > capacity { evict() }
    }

    /// Applies `change` to the entry of `key` (made when missing), marks it used and keeps
    /// ``count`` right.
    private mutating func update(_ key: Key, _ change: (inout Entry) -> Void) {
        uses += 1
        var entry = entries.removeValue(forKey: key) ?? Entry(lastUsed: uses)
        count -= entry.size
        change(&entry)
        entry.lastUsed = uses
        count += entry.size
        entries[key] = entry
    }

    /// Drops the learners used least recently until a quarter of the capacity is free.
    private mutating func evict() {
        let target = capacity - capacity / 4
        for (key, entry) in entries.sorted(by: { $0.value.lastUsed < $1.value.lastUsed }) {
            guard count > target else { break }
            entries[key] = nil
            count -= entry.size
        }
    }
}
