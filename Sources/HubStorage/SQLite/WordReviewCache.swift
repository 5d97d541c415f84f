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

    /// What one write transaction read and wrote of the learners' word states. Recorded in the
    /// cache only once the transaction commits.
    struct Changes {
        /// Per learner, in the order noted: a word's state, or nil when it has none.
        fileprivate(set) var states: [Key: [(word: String, state: WordReview?)]] = [:]
        /// Learners whose every state the transaction read, with those states (applied before
        /// the words noted in ``states``).
        fileprivate(set) var whole: [Key: [String: WordReview]] = [:]
        /// Learners whose states the transaction found too many to keep whole.
        fileprivate(set) var tooLargeForWhole: Set<Key> = []
        /// Words the transaction added to `known_words`, per learner.
        fileprivate(set) var knownWords: [Key: Set<String>] = [:]

        /// Whether the transaction noted nothing.
        var isEmpty: Bool { states.isEmpty && whole.isEmpty && tooLargeForWhole.isEmpty && knownWords.isEmpty }

        /// Notes `states` of `key` (read or written by the transaction; a later one of a word wins).
        mutating func note(_ states: some Sequence<(key: String, value: WordReview?)>, for key: Key) {
            self.states[key, default: []].append(contentsOf: states.lazy.map { (word: $0.key, state: $0.value) })
        }

        /// Notes that the transaction read every state of `key`: `states`, taken by the cache as
        /// they are (``Coverage/whole``).
        mutating func noteWhole(_ states: [String: WordReview], for key: Key) {
            whole[key] = states
        }

        /// Notes that the transaction found more states of `key` than ``WordReviewCache/wholeSetLimit``.
        mutating func noteTooLargeForWhole(_ key: Key) {
            tooLargeForWhole.insert(key)
        }

        /// Notes `words` added to the known words of `key` (those known already included).
        mutating func noteKnownWords(_ words: Set<String>, for key: Key) {
            knownWords[key, default: []].formUnion(words)
        }
    }

    /// A learner's word states, known words (nil until read whole) and when the cache last used them.
    private struct Entry {
        /// The words held that have a state.
        var states: [String: WordReview] = [:]
        /// The words held that have none (empty while ``coverage`` is whole: a word not in
        /// ``states`` has none then).
        var absent: Set<String> = []
        var coverage = Coverage.partial
        var known: Set<String>?
        var lastUsed: UInt64

        /// Room taken, in word states: a known word is a quarter of one (``WordReviewCache/knownWordsPerState``).
        var size: Int {
            states.count + absent.count + ((known?.count ?? 0) + knownWordsPerState - 1) / knownWordsPerState
        }

        /// What the entry says of `word`: its state (`.some(nil)`: none), or nil when not held.
        func state(of word: String) -> WordReview?? {
            if let state = states[word] { return .some(state) }
            return coverage == .whole || absent.contains(word) ? .some(nil) : nil
        }

        /// Holds `state` of `word` (nil: it has none).
        mutating func hold(_ state: WordReview?, of word: String) {
            if let state {
                states[word] = state
                if !absent.isEmpty { absent.remove(word) }
            } else if coverage != .whole {
                absent.insert(word)
            } else {
                states[word] = nil
            }
        }
    }

    /// The default bound, in word states: about 105 MB once full, the words of some 10,000
    /// learners who each met 80 and know as many. At 400,000 (42 MB) the 6,336 learners of the
    /// load test at 19,000 deliveries/s did not fit: every ended session and join read its
    /// learners again, and the hub spent 15 % more per delivery (README, issue 11).
    static let defaultCapacity = 1_000_000

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
    /// (``Coverage/whole``): a 64th of the capacity (15,625 by default), so that one learner
    /// cannot crowd out the others. A learner past it has all of their states read (and
    /// decoded) again whenever a review meets a word the cache does not hold.
    var wholeSetLimit: Int { capacity / 64 }

    init(capacity: Int = WordReviewCache.defaultCapacity) {
        self.capacity = max(0, capacity)
    }

    /// What the cache knows of each of `words` for `key`, in their order: the word's state
    /// (`.some(nil)`: it has none), or nil when the cache does not know (the caller reads it);
    /// how many it does not know; and how much of the learner's states it holds. One hash of
    /// each word.
    mutating func states(of words: some Sequence<String>, for key: Key)
        -> (states: [WordReview??], unknown: Int, coverage: Coverage) {
        guard let entry = entries[key] else {
            let states = [WordReview??](words.lazy.map { _ in nil })
            return (states, states.count, .partial)
        }
        var unknown = 0
        let states = words.map { word -> WordReview?? in
            let state = entry.state(of: word)
            if state == nil { unknown += 1 }
            return state
        }
        uses += 1
        entries[key]?.lastUsed = uses
        return (states, unknown, entry.coverage)
    }

    /// ``states(of:for:)`` as the words it knows with a state, the words it does not know, and
    /// the coverage.
    mutating func lookUp(_ words: some Sequence<String>, for key: Key)
        -> (known: [String: WordReview], unknown: [String], coverage: Coverage) {
        let words = Array(words)
        let found = states(of: words, for: key)
        var known: [String: WordReview] = [:], unknown: [String] = []
        for (word, state) in zip(words, found.states) {
            switch state {
            case .none: unknown.append(word)
            case .some(.none): continue
            case .some(.some(let state)): known[word] = state
            }
        }
        return (known, unknown, found.coverage)
    }

    /// Records what a committed transaction read and wrote. Added known words go only to a
    /// learner whose whole set is held (a set read later comes from the table, with them).
    mutating func record(_ changes: Changes) {
        guard capacity > 0 else { return }
        for (key, states) in changes.whole {
            update(key) { entry in
                entry.states = states
                entry.absent = []
                entry.coverage = .whole
            }
        }
        for key in changes.tooLargeForWhole {
            update(key) { $0.coverage = .tooLargeForWhole }
        }
        for (key, states) in changes.states {
            update(key) { entry in
                for (word, state) in states { entry.hold(state, of: word) }
            }
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
