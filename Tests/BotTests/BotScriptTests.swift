import HubDomain
import Testing
@testable import sessionhub_bot

@Suite("Bot helpers: line script, recasts")
struct BotScriptTests {
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
