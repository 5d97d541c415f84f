import HubDomain

/// The stored SM-2 states of the words that recently active learners met, kept by
/// ``SQLiteStore`` so that an ended session's review (``SQLiteStore/reviewWords(_:userId:language:session:vocabulary:changes:)``)
/// reads from `word_reviews` only the words it has not seen yet.
///
/// A learner who plays again meets mostly the words of their last sessions, and most of them are
/// not due (a state that does not change is not written), so without the cache a session's end
/// spends more time looking those rows up than writing anything. The cache knows, per learner and
/// language, the state of each word it has seen (or that the word has no row), exactly as stored:
/// the store is the file's only writer of `word_reviews` (the hub holds its data directory), and
/// it records in the cache only what a transaction read and wrote once that transaction has
/// committed, under the connection's lock (``Changes``). A failed write leaves the cache as it was.
///
/// Bounded by ``capacity`` word states in all (about 130 bytes each); past it, the learners used
/// least recently are dropped until a quarter of the room is free. A capacity of 0 turns it off.
struct WordReviewCache {
    /// One learner's words in one language.
    struct Key: Hashable {
        var userId: String
        var language: String
    }

    /// What one write transaction read from and wrote to `word_reviews`, per learner: a word's
    /// state, or nil when it has no row. Recorded in the cache only once the transaction commits.
    struct Changes {
        fileprivate(set) var states: [Key: [String: WordReview?]] = [:]

        /// Notes `states` of `key` (read or written by the transaction).
        mutating func note(_ states: [String: WordReview?], for key: Key) {
            self.states[key, default: [:]].merge(states) { _, new in new }
        }
    }

    /// A learner's known words and when the cache last used them.
    private struct Entry {
        var states: [String: WordReview?]
        var lastUsed: UInt64
    }

    /// The default bound, in word states: about 30 MB, the words of some 3,000 learners who
    /// each met 80.
    static let defaultCapacity = 250_000

    /// The most word states kept, over all learners; 0: nothing is kept.
    let capacity: Int
    private var entries: [Key: Entry] = [:]
    private var uses: UInt64 = 0
    /// Word states held now.
    private(set) var count = 0

    init(capacity: Int = WordReviewCache.defaultCapacity) {
        self.capacity = max(0, capacity)
    }

    /// The states the cache knows of `words` for `key` (a word without a row is known too, and
    /// left out of `known`), and the words it does not know, which the caller reads.
    mutating func lookUp(_ words: some Sequence<String>, for key: Key) -> (known: [String: WordReview], unknown: [String]) {
        guard var entry = entries[key] else { return ([:], Array(words)) }
        var known: [String: WordReview] = [:], unknown: [String] = []
        for word in words {
            switch entry.states[word] {
            case .none: unknown.append(word)
            case .some(.none): continue
            case .some(.some(let state)): known[word] = state
            }
        }
        uses += 1
        entry.lastUsed = uses
        entries[key] = entry
        return (known, unknown)
    }

    /// Records what a committed transaction read and wrote.
    mutating func record(_ changes: Changes) {
        guard capacity > 0 else { return }
        for (key, states) in changes.states {
            uses += 1
            var entry = entries.removeValue(forKey: key) ?? Entry(states: [:], lastUsed: uses)
            count -= entry.states.count
            entry.states.merge(states) { _, new in new }
            entry.lastUsed = uses
            count += entry.states.count
            entries[key] = entry
        }
        if count > capacity { evict() }
    }

    /// Drops the learners used least recently until a quarter of the capacity is free.
    private mutating func evict() {
        let target = capacity - capacity / 4
        for (key, entry) in entries.sorted(by: { $0.value.lastUsed < $1.value.lastUsed }) {
            guard count > target else { break }
            entries[key] = nil
            count -= entry.states.count
        }
    }
}
