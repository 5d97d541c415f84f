import HubDomain
import Testing

/// ``SessionVocabulary`` works on word indices; these tests hold it to a plain, string-keyed
/// statement of the rules (docs/API.md, "Vocabulary and SM-2") over many random sessions.
@Suite("SessionVocabulary agrees with a plain statement of its rules")
struct SessionVocabularyReferenceTests {
    /// The rules, written the obvious way: word → quality for `userId`.
    static func reference(_ userId: String, _ session: EndedSession) -> [String: Int] {
        func words(_ text: String) -> [String] { WordTokenizer.words(in: text).sorted() }
        var corrected: [String: Int] = [:], succeeded: [String: Int] = [:], order: [String] = []
        func note(_ word: String, _ quality: Int, correction: Bool) {
            if corrected[word] == nil, succeeded[word] == nil { order.append(word) }
            if correction { corrected[word] = min(corrected[word] ?? quality, quality) }
            else { succeeded[word] = max(succeeded[word] ?? quality, quality) }
        }
        var removed: [String: Set<String>] = [:]
        for recast in session.recasts where recast.speakerId == userId {
            let original = session.lines.first { $0.id == recast.lineId }.map { words($0.textNative) } ?? []
            let fixed = words(recast.correctedText)
            for word in fixed where !original.contains(word) { note(word, recast.accepted ? 2 : 1, correction: true) }
            removed[recast.lineId, default: []].formUnion(original.filter { !fixed.contains($0) })
        }
        for line in session.lines {
            for word in words(line.textNative) where !(removed[line.id]?.contains(word) ?? false) {
                note(word, line.speakerId == userId ? 5 : 4, correction: false)
            }
        }
        let ranked = order.filter { corrected[$0] != nil }.map { ($0, corrected[$0] ?? 0) }
            + order.filter { corrected[$0] == nil && succeeded[$0] == 5 }.map { ($0, 5) }
            + order.filter { corrected[$0] == nil && succeeded[$0] != 5 }.map { ($0, succeeded[$0] ?? 0) }
        return Dictionary(ranked.prefix(SessionVocabulary.maxWordsPerSession).map { $0 }, uniquingKeysWith: { a, _ in a })
    }

    static func randomSession(_ generator: inout SplitMix64) -> EndedSession {
        let speakers = ["ana", "bob", "cho", "dev"]
        // A small vocabulary, so words repeat across lines, recasts and speakers; sometimes a
        // large one, so the bound of maxWordsPerSession is reached.
        let vocabularySize = Bool.random(using: &generator) ? 25 : 400
        func text() -> String {
            (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                let word = "w\(Int.random(in: 0..<vocabularySize, using: &generator))"
                return Bool.random(using: &generator) ? word.uppercased() + "," : word
            }.joined(separator: " ")
        }
        var lines: [DialogLine] = []
        for index in 0..<Int.random(in: 0...40, using: &generator) {
            // Now and then a line id repeats (a retried say), which the rules must survive.
            let id = Int.random(in: 0..<20, using: &generator) == 0 && index > 0 ? "l\(index - 1)" : "l\(index)"
            lines.append(DialogLine(id: id, speakerId: speakers.randomElement(using: &generator) ?? "ana", roleName: "R",
                                    textNative: text(), textTranslated: "", timestamp: Int64(index)))
        }
        var recasts: [Recast] = []
        for index in 0..<Int.random(in: 0...6, using: &generator) {
            let target = lines.randomElement(using: &generator)
            recasts.append(Recast(id: "r\(index)", lineId: target?.id ?? "missing", authorId: "bob",
                                  speakerId: target?.speakerId ?? "ana", correctedText: text(), explanation: nil,
                                  issueTypes: [.grammar], timestamp: 100 + Int64(index),
                                  accepted: Bool.random(using: &generator)))
        }
        return EndedSession(sessionId: "s", scenarioId: "x", scenarioTitle: "X", targetLanguage: "fr", multiplayer: true,
                            startedAt: 0, endedAt: 1, cause: .hostEnded, goalReached: false, lines: lines,
                            recasts: recasts, participants: [])
    }

    @Test("Random sessions: every participant's reviews equal the plain statement's", arguments: 0..<20)
    func agreesWithReference(batch: Int) {
        for seed in UInt64(batch * 50)..<UInt64(batch * 50 + 50) {
            var generator = SplitMix64(seed: seed)
            let session = Self.randomSession(&generator)
            let vocabulary = SessionVocabulary(session)
            for userId in ["ana", "bob", "cho", "dev", "eve"] {
                #expect(vocabulary.reviews(of: userId) == Self.reference(userId, session), "seed \(seed), \(userId)")
            }
        }
    }
}
