import Foundation
import HubDomain
@testable import HubStorage
import Testing

@Suite("The SQLite store's cache of word reviews")
struct WordReviewCacheTests {
    static let ana = WordReviewCache.Key(userId: "ana", language: "fr")
    static let bob = WordReviewCache.Key(userId: "bob", language: "fr")

    static func state(_ repetitions: Int) -> WordReview {
        WordReview.first(quality: 4, at: Int64(repetitions) * 1_000)
    }

    static func changes(_ states: [String: WordReview?], for key: WordReviewCache.Key) -> WordReviewCache.Changes {
        var changes = WordReviewCache.Changes()
        changes.note(states, for: key)
        return changes
    }

    @Test("A word is known with its state, known to have no row, or unknown")
    func lookUp() {
        var cache = WordReviewCache(capacity: 100)
        #expect(cache.lookUp(["un", "deux"], for: Self.ana).unknown == ["un", "deux"])
        cache.record(Self.changes(["un": Self.state(1), "deux": WordReview?.none], for: Self.ana))
        let found = cache.lookUp(["un", "deux", "trois"], for: Self.ana)
        #expect(found.known == ["un": Self.state(1)])
        #expect(found.unknown == ["trois"])
        #expect(cache.lookUp(["un"], for: Self.bob).unknown == ["un"], "per learner")
        // A later write replaces the state; a word with no row gets one.
        cache.record(Self.changes(["un": Self.state(2), "deux": Self.state(3)], for: Self.ana))
        #expect(cache.lookUp(["un", "deux"], for: Self.ana).known == ["un": Self.state(2), "deux": Self.state(3)])
        #expect(cache.count == 2)
    }

    @Test("States come back in the words' order: held with a state, held without one, or not held")
    func statesInOrder() {
        var cache = WordReviewCache(capacity: 100)
        let first = cache.states(of: ["un", "deux"], for: Self.ana)
        #expect(first.states == [nil, nil] && first.unknown == 2 && first.coverage == .partial)
        cache.record(Self.changes(["un": Self.state(1), "deux": WordReview?.none], for: Self.ana))
        var found = cache.states(of: ["trois", "deux", "un"], for: Self.ana)
        #expect(found.states == [nil, .some(nil), .some(Self.state(1))])
        #expect(found.unknown == 1)
        #expect(cache.count == 2, "a word held without a state takes room too")
        // A word held without a state gets one: held once, with its state.
        cache.record(Self.changes(["deux": Self.state(2)], for: Self.ana))
        found = cache.states(of: ["deux"], for: Self.ana)
        #expect(found.states == [.some(Self.state(2))])
        #expect(cache.count == 2)
        // Noted twice in one transaction, the later state wins.
        var twice = WordReviewCache.Changes()
        twice.note([(key: "un", value: Self.state(3))], for: Self.ana)
        twice.note([(key: "un", value: Self.state(4))], for: Self.ana)
        cache.record(twice)
        #expect(cache.states(of: ["un"], for: Self.ana).states == [.some(Self.state(4))])
    }

    @Test("A learner held whole has no row for a word not held; one too large to read whole stays word by word")
    func coverage() {
        var cache = WordReviewCache(capacity: 64 * 10)
        #expect(cache.wholeSetLimit == 10)
        var whole = WordReviewCache.Changes()
        whole.noteWhole(["un": Self.state(1)], for: Self.ana)
        whole.note(["un": Self.state(1)], for: Self.bob)
        whole.noteTooLargeForWhole(Self.bob)
        cache.record(whole)
        let ana = cache.lookUp(["un", "deux"], for: Self.ana)
        #expect(ana.known == ["un": Self.state(1)])
        #expect(ana.unknown.isEmpty, "deux has no row")
        #expect(ana.coverage == .whole)
        let bob = cache.lookUp(["un", "deux"], for: Self.bob)
        #expect(bob.known == ["un": Self.state(1)])
        #expect(bob.unknown == ["deux"])
        #expect(bob.coverage == .tooLargeForWhole)
        #expect(cache.lookUp(["un"], for: WordReviewCache.Key(userId: "carl", language: "fr")).coverage == .partial)
        // A later write keeps the coverage.
        cache.record(Self.changes(["deux": Self.state(2)], for: Self.ana))
        #expect(cache.lookUp(["deux", "trois"], for: Self.ana) == (["deux": Self.state(2)], [], .whole))
    }

    @Test("Past its capacity the learners used least recently go, until a quarter is free")
    func eviction() {
        var cache = WordReviewCache(capacity: 8)
        cache.record(Self.changes(["a": Self.state(1), "b": Self.state(1), "c": Self.state(1)], for: Self.ana))
        cache.record(Self.changes(["a": Self.state(1), "b": Self.state(1), "c": Self.state(1)], for: Self.bob))
        _ = cache.lookUp(["a"], for: Self.ana)                 // ana used after bob
        let carl = WordReviewCache.Key(userId: "carl", language: "fr")
        cache.record(Self.changes(["a": Self.state(1), "b": Self.state(1), "c": Self.state(1)], for: carl))
        #expect(cache.count == 6, "bob went: 9 states over a capacity of 8, down to 6")
        #expect(cache.lookUp(["a"], for: Self.bob).unknown == ["a"])
        #expect(cache.lookUp(["a"], for: Self.ana).unknown.isEmpty)
        #expect(cache.lookUp(["a"], for: carl).unknown.isEmpty)
    }

    @Test("Known words take a quarter of a word state's room each, rounded up per learner")
    func knownWordsWeighLess() {
        var cache = WordReviewCache(capacity: 10)
        cache.keep(knownWords: ["a", "b", "c", "d", "e"], for: Self.ana)
        #expect(cache.count == 2, "five known words: the room of two states")
        cache.record(Self.changes(["a": Self.state(1), "b": Self.state(1)], for: Self.ana))
        #expect(cache.count == 4)
        // Sixteen known words and four states: bob takes 4 + 4, ana 4, 12 over a capacity of 10.
        cache.keep(knownWords: Set((0..<16).map { "w\($0)" }), for: Self.bob)
        #expect(cache.count == 8)
        cache.record(Self.changes(["a": Self.state(1), "b": Self.state(1), "c": Self.state(1), "d": Self.state(1)],
                                  for: Self.bob))
        #expect(cache.count == 8, "ana, used least recently, went: down to a quarter free")
        #expect(cache.knownWords(for: Self.ana) == nil)
        #expect(cache.knownWords(for: Self.bob)?.count == 16)
    }

    @Test("A capacity of 0 keeps nothing")
    func off() {
        var cache = WordReviewCache(capacity: 0)
        cache.record(Self.changes(["un": Self.state(1)], for: Self.ana))
        #expect(cache.count == 0)
        #expect(cache.lookUp(["un"], for: Self.ana).unknown == ["un"])
    }

    // MARK: In the store

    /// The sessions both stores save: first meetings, a same-day replay (nothing due), due
    /// reviews two days later, a failed recast's word, and a word only the later sessions have.
    static let series: [(id: String, endedAt: Int64, anaSays: String, recast: Bool)] = {
        let start = VocabularyStoreTests.start
        let words = (1...30).map { "mot\($0)" }
        return [
            ("s1", start, words.joined(separator: " "), false),
            ("s2", start + 2 * Day.hour, words.prefix(20).joined(separator: " "), true),
            ("s3", start + 2 * Day.ms, words.dropFirst(10).joined(separator: " ") + " nouveau", true),
            ("s4", start + 9 * Day.ms, words.joined(separator: " ") + " nouveau", false),
        ]
    }()

    static func save(_ index: Int, to store: SQLiteStore) async {
        let step = series[index]
        _ = await store.save(VocabularyStoreTests.session(step.id, endedAt: step.endedAt, anaSays: step.anaSays,
                                                          recast: step.recast))
    }

    @Test("With the cache, with a tiny one and without: the same states stored after every session",
          arguments: [WordReviewCache.defaultCapacity, 7])
    func sameStatesAsUncached(_ capacity: Int) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let cached = try SQLiteStore(path: dir.file("cached.sqlite"), wordReviewCacheCapacity: capacity)
        let plain = try SQLiteStore(path: dir.file("plain.sqlite"), wordReviewCacheCapacity: 0)
        for index in Self.series.indices {
            await Self.save(index, to: cached)
            await Self.save(index, to: plain)
            for user in ["ana", "bob"] {
                let expected = try await plain.wordReviews(userId: user, language: "fr")
                #expect(!expected.isEmpty)
                #expect(try await cached.wordReviews(userId: user, language: "fr") == expected, "\(user) after \(index)")
            }
        }
        #expect(plain.cachedWordReviews == 0)
        if capacity == WordReviewCache.defaultCapacity {
            // Everything ana met is known now: her next review reads nothing.
            let met = try await plain.wordReviews(userId: "ana", language: "fr")
            #expect(cached.cachedWordReviews >= met.count)
            let found = cached.reviewCache.withLock { $0.lookUp(met.keys, for: Self.ana) }
            #expect(found.unknown.isEmpty)
            #expect(found.known == met)
        } else {
            #expect(cached.cachedWordReviews <= capacity)
        }
    }

    @Test("A reopened store reads a returning learner's rows whole, or word by word past the limit, and stores the same states",
          arguments: [WordReviewCache.defaultCapacity, 64 * 20, 0])
    func returningLearner(_ capacity: Int) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let plain = try SQLiteStore(path: dir.file("plain.sqlite"), wordReviewCacheCapacity: 0)
        let first = try SQLiteStore(path: dir.file("cached.sqlite"))
        for store in [first, plain] { await Self.save(0, to: store) }
        first.close()
        // ana met 30 words in s1 and more after: over the limit of 20 of the middle capacity.
        let cached = try SQLiteStore(path: dir.file("cached.sqlite"), wordReviewCacheCapacity: capacity)
        defer { cached.close() }
        #expect(cached.cachedWordReviews == 0)
        for index in Self.series.indices.dropFirst() {
            await Self.save(index, to: cached)
            await Self.save(index, to: plain)
            for user in ["ana", "bob"] {
                let expected = try await plain.wordReviews(userId: user, language: "fr")
                #expect(try await cached.wordReviews(userId: user, language: "fr") == expected, "\(user) after \(index)")
            }
        }
        let met = try await plain.wordReviews(userId: "ana", language: "fr")
        #expect(met.count > 20, "over the limit of the middle capacity")
        let found = cached.reviewCache.withLock { $0.lookUp(Array(met.keys) + ["ailleurs"], for: Self.ana) }
        switch capacity {
        case WordReviewCache.defaultCapacity:
            #expect(found.coverage == .whole)
            #expect(found.known == met)
            #expect(found.unknown.isEmpty, "a word not held has no row")
        case 0:
            #expect(found.unknown.count == met.count + 1, "nothing held")
        default:
            #expect(found.coverage == .tooLargeForWhole)
            #expect(found.unknown == ["ailleurs"], "held word by word: the words met, not the others")
        }
    }

    @Test("A write that fails leaves the cache as it was: the retried write reviews from the stored states")
    func failedWriteIsNotCached() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let cached = try SQLiteStore(path: dir.file("cached.sqlite"))
        let plain = try SQLiteStore(path: dir.file("plain.sqlite"), wordReviewCacheCapacity: 0)
        for store in [cached, plain] { await Self.save(0, to: store) }
        let afterFirst = try await plain.wordReviews(userId: "ana", language: "fr")
        for store in [cached, plain] {
            // Two days later every word is due: the write reviews them all, then fails.
            store.failNextWrites = 1
            await Self.save(2, to: store)
            #expect(try store.sealedCount() == 1)
        }
        #expect(try await cached.wordReviews(userId: "ana", language: "fr")
                == (try await plain.wordReviews(userId: "ana", language: "fr")))
        for store in [cached, plain] {
            #expect(await store.retrySealed() == 1)
            await Self.save(3, to: store)
        }
        let expected = try await plain.wordReviews(userId: "ana", language: "fr")
        #expect(expected != afterFirst, "the retried write and the next one reviewed")
        #expect(try await cached.wordReviews(userId: "ana", language: "fr") == expected)
    }

    // MARK: Known words

    /// `user`'s known words as the table holds them, read past the cache.
    static func storedKnownWords(_ store: SQLiteStore, _ user: String) throws -> Set<String> {
        try store.database.withConnection { db in
            Set(try db.query("""
                SELECT j.value FROM known_word_sets s, json_each(s.words) j WHERE s.user_id = ?1 AND s.language = 'fr'
                UNION ALL SELECT word FROM known_words WHERE user_id = ?1 AND language = 'fr'
                """, [.text(user)]) { $0.string(0) })
        }
    }

    /// Session `step` of ``series`` whose players learned words: ana every word she says, bob the first few.
    static func learning(_ id: String, endedAt: Int64, anaSays: String, recast: Bool) -> EndedSession {
        var session = VocabularyStoreTests.session(id, endedAt: endedAt, anaSays: anaSays, recast: recast)
        let said = anaSays.split(separator: " ").map(String.init)
        for index in session.participants.indices {
            session.participants[index].newWords = Set(session.participants[index].userId == "ana" ? said : Array(said.prefix(3)))
        }
        return session
    }

    @Test("Known words read from memory equal the table after every save, added words and a failed write",
          arguments: [WordReviewCache.defaultCapacity, 7, 0])
    func knownWordsFollowTheTable(_ capacity: Int) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try SQLiteStore(path: dir.file("store.sqlite"), wordReviewCacheCapacity: capacity)
        #expect(await store.knownWords(userId: "ana", language: "fr").isEmpty, "read (and kept) before any save")
        for step in Self.series {
            _ = await store.save(Self.learning(step.id, endedAt: step.endedAt, anaSays: step.anaSays, recast: step.recast))
            for user in ["ana", "bob"] {
                let stored = try Self.storedKnownWords(store, user)
                #expect(await store.knownWords(userId: user, language: "fr") == stored, "\(user) after \(step.id)")
                if let held = store.knownWordsInMemory(userId: user, language: "fr") {
                    #expect(capacity > 0)
                    #expect(held == stored, "\(user) after \(step.id), from memory")
                }
            }
        }
        #expect(try Self.storedKnownWords(store, "ana").contains("nouveau"), "the series adds words")
        if capacity == WordReviewCache.defaultCapacity {
            #expect(store.knownWordsInMemory(userId: "ana", language: "fr") != nil, "held once read")
        }
        if capacity == 0 {
            #expect(store.knownWordsInMemory(userId: "ana", language: "fr") == nil)
        }
        // Words recorded outside a save, and a write that fails (nothing added, memory unchanged).
        await store.recordWords(["bonjour", "merci"], userId: "ana", language: "fr")
        #expect(await store.knownWords(userId: "ana", language: "fr") == (try Self.storedKnownWords(store, "ana")))
        let before = try Self.storedKnownWords(store, "ana")
        store.failNextWrites = 1
        _ = await store.save(Self.learning("s5", endedAt: VocabularyStoreTests.start + 10 * Day.ms,
                                           anaSays: "jamais encore", recast: false))
        #expect(try store.sealedCount() == 1)
        #expect(try Self.storedKnownWords(store, "ana") == before)
        #expect(await store.knownWords(userId: "ana", language: "fr") == before)
        // The retried write adds them, and memory follows.
        #expect(await store.retrySealed() == 1)
        let after = try Self.storedKnownWords(store, "ana")
        #expect(after.contains("jamais"))
        #expect(await store.knownWords(userId: "ana", language: "fr") == after)
    }
}
