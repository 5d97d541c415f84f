import HubDomain
import HubProtocol
import Testing

@Suite("Bot helpers: seq tracking, line script, recasts")
struct BotScriptTests {
    @Test("SeqTracker accepts S+1, S+2, …; reports gaps, duplicates and broadcasts before a snapshot")
    func seqTracker() {
        var tracker = SeqTracker()
        #expect(tracker.record(3) == .beforeSnapshot(3))
        #expect(tracker.lastSeq == nil)
        tracker.restart(after: 4)
        #expect(tracker.record(5) == .next)
        #expect(tracker.record(6) == .next)
        #expect(tracker.record(6) == .duplicate(6))
        #expect(tracker.record(2) == .duplicate(2))
        #expect(tracker.record(9) == .gap(expected: 7, received: 9))
        #expect(tracker.record(10) == .next)
        #expect(tracker.lastSeq == 10)
        var fromSnapshot = SeqTracker(after: 1)
        #expect(fromSnapshot.record(2) == .next)
        fromSnapshot.restart(after: 40)
        #expect(fromSnapshot.record(41) == .next)
    }

    @Test("Lines follow the role's hints round-robin, each with its counter")
    func lineScript() throws {
        let scenario = try #require(try ScenarioCatalog.load().scenario(id: "ordering-coffee"))
        let script = BotLineScript(scenario: scenario)
        let barista = scenario.hints.filter { $0.roleName == "Barista" }
        #expect(script.line(role: "Barista", turn: 0, counter: 1)
            == BotLineScript.Line(textNative: "\(barista[0].textNative) (1)", textTranslated: "\(barista[0].textTranslated) (1)"))
        #expect(script.line(role: "Barista", turn: barista.count, counter: 9).textNative == "\(barista[0].textNative) (9)")
        #expect(script.line(role: "Barista", turn: 1, counter: 2).textNative == "\(barista[1].textNative) (2)")
        // An unknown role borrows every hint.
        #expect(script.line(role: "Tourist", turn: 0, counter: 3).textNative == "\(scenario.hints[0].textNative) (3)")
        let lines = (1...30).map { script.line(role: $0 % 2 == 0 ? "Barista" : "Customer", turn: $0 / 2, counter: $0).textNative }
        #expect(Set(lines).count == 30)
    }

    @Test("Recasts: plausible corrections that keep the counter; 1–2 sorted issue types")
    func recasts() {
        let swap = BotRecastComposer.correction(of: "Un café con leche, por favor. (2)", issueTypes: [.sentenceStructure])
        #expect(swap.correctedText == "Por favor, un café con leche. (2)")
        #expect(swap.issueTypes == [.sentenceStructure])
        let french = BotRecastComposer.correction(of: "Puis-je voir votre pièce d'identité, s'il vous plaît ? (1)", issueTypes: [.sentenceStructure])
        #expect(french.correctedText == "S'il vous plaît, puis-je voir votre pièce d'identité ? (1)")
        #expect(swap.explanation.hasPrefix("sentence_structure: "))
        let tidy = BotRecastComposer.correction(of: "  para   llevar (3)", issueTypes: [.naturalness, .grammar, .grammar])
        #expect(tidy.correctedText == "Para llevar. (3)")
        #expect(tidy.issueTypes == [.grammar, .naturalness])
        let untouched = BotRecastComposer.correction(of: "Con tarjeta. Gracias, ¡hasta luego! (9)", issueTypes: [.sentenceStructure])
        #expect(untouched.correctedText == "Con tarjeta. Gracias, ¡hasta luego! (9)")
        #expect(BotRecastComposer.correction(of: "(4)", issueTypes: [.vocabulary]).correctedText == "(4)")

        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let types = BotRecastComposer.issueTypes(using: &generator)
            #expect((1...2).contains(types.count))
            #expect(types == types.sorted() && Set(types).count == types.count)
        }
    }
}
