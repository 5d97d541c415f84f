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
}
