import HubDomain
import Testing

/// ``SessionWords``: a session's lines split into words once, as the live session records them,
/// and reused by the review at its end (``SessionVocabulary``).
@Suite("SessionWords")
struct SessionWordsTests {
    @Test("Words are numbered in order of first occurrence; each line keeps its distinct words sorted")
    func numbering() {
        var words = SessionWords()
        #expect(words.add("Bonjour, le monde! Le MONDE.") == ["bonjour", "le", "monde"])
        #expect(words.add("le chat et le monde") == ["chat", "et"])
        #expect(words.add("...") == [])
        #expect(words.words == ["bonjour", "le", "monde", "chat", "et"])
        #expect(words.lines == [[0, 1, 2], [3, 4, 1, 2], []])
        #expect(words.count == 5)
        #expect(words.contains("chat") && !words.contains("chien"))
        #expect(words.number(of: "et") == 4 && words.number(of: "chien") == nil)
    }

    @Test("Known and unknown words against a learner's set, whichever set is smaller")
    func knownWords() {
        var words = SessionWords()
        words.add("un deux trois quatre")
        #expect(words.countKnown(["deux", "cinq"]) == 1)
        #expect(words.countKnown(["un", "deux", "trois", "quatre", "cinq", "six"]) == 4)
        #expect(words.unknown(to: ["deux", "cinq"]) == ["un", "trois", "quatre"])
        #expect(words.unknown(to: []) == ["un", "deux", "trois", "quatre"])
    }

    @Test("The review from the live split equals the review that splits the transcript itself", arguments: 0..<5)
    func reviewFromLiveSplit(batch: Int) {
        for seed in UInt64(batch * 40)..<UInt64(batch * 40 + 40) {
            var generator = SplitMix64(seed: seed)
            let session = SessionVocabularyReferenceTests.randomSession(&generator)
            var live = session
            live.words = SessionWords()
            for line in session.lines { live.words?.add(line.textNative) }
            #expect(live == session, "the split is not part of the record's equality")
            let fromLive = SessionVocabulary(live), fromTranscript = SessionVocabulary(session)
            for userId in ["ana", "bob", "cho", "dev"] {
                #expect(fromLive.reviews(of: userId) == fromTranscript.reviews(of: userId), "seed \(seed), \(userId)")
                #expect(fromLive.reviews(of: userId) == SessionVocabularyReferenceTests.reference(userId, session))
            }
        }
    }

    @Test("A split that does not cover every line is not used: the transcript is split again")
    func staleSplitIgnored() {
        let line = { (id: String, text: String) in
            DialogLine(id: id, speakerId: "ana", roleName: "R", textNative: text, textTranslated: "", timestamp: 0)
        }
        var session = EndedSession(sessionId: "s", scenarioId: "x", scenarioTitle: "X", targetLanguage: "fr",
                                   multiplayer: false, startedAt: 0, endedAt: 1, cause: .hostEnded, goalReached: false,
                                   lines: [line("l1", "un chat"), line("l2", "deux chiens")], recasts: [], participants: [])
        var stale = SessionWords()
        stale.add("un chat")
        session.words = stale
        #expect(SessionVocabulary(session).reviews(of: "ana") == ["un": 5, "chat": 5, "deux": 5, "chiens": 5])
    }
}
