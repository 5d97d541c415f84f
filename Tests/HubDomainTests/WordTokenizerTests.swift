@testable import HubDomain
import Testing

@Suite("WordTokenizer")
struct WordTokenizerTests {
    @Test func splitsOnSpacesAndPunctuationAndLowercases() {
        #expect(WordTokenizer.words(in: "Hola, buenos días. ¿Qué le pongo?") == ["hola", "buenos", "días", "qué", "le", "pongo"])
    }

    @Test func countsEachWordOnce() {
        #expect(WordTokenizer.words(in: "Hola hola HOLA ¡hola!") == ["hola"])
    }

    @Test func emptyAndPunctuationOnlyTextHaveNoWords() {
        #expect(WordTokenizer.words(in: "").isEmpty)
        #expect(WordTokenizer.words(in: "  ¿? ¡! ... — - ' ").isEmpty)
    }

    @Test func keepsInWordApostrophesAndHyphens() {
        #expect(WordTokenizer.words(in: "l'hôtel don't well-known rock’n’roll") == ["l'hôtel", "don't", "well-known", "rock’n’roll"])
    }

    @Test func dropsLeadingAndTrailingApostrophesAndHyphens() {
        #expect(WordTokenizer.words(in: "'quoted' -dash- dogs' end--") == ["quoted", "dash", "dogs", "end"])
    }

    @Test func aLoneHyphenBetweenWordsSeparatesThem() {
        #expect(WordTokenizer.words(in: "uno - dos") == ["uno", "dos"])
    }

    @Test func digitsAreWordCharacters() {
        #expect(WordTokenizer.words(in: "Son 3,50 euros, habitación 12B") == ["son", "3", "50", "euros", "habitación", "12b"])
    }

    @Test func scriptsWithoutSpacesCountARunAsOneWord() {
        #expect(WordTokenizer.words(in: "東京駅はどこですか？") == ["東京駅はどこですか"])
        #expect(WordTokenizer.words(in: "切符を一枚、ください。") == ["切符を一枚", "ください"])
    }

    @Test func accentedLettersAreLettersAndLowercaseKeepsThem() {
        #expect(WordTokenizer.words(in: "ÉTÉ Straße ÇA") == ["été", "straße", "ça"])
    }

    @Test func canonicallyEquivalentSpellingsAreOneWord() {
        // "café" precomposed (U+00E9) and decomposed (e + U+0301).
        #expect(WordTokenizer.words(in: "caf\u{E9} cafe\u{301}").count == 1)
    }

    @Test func separatesOnOtherWhitespaceAndSymbols() {
        #expect(WordTokenizer.words(in: "uno\ttres\ncuatro/cinco+seis_siete") == ["uno", "tres", "cuatro", "cinco", "seis", "siete"])
    }

    @Test("All-ASCII text takes the byte path and finds exactly the words of the character path")
    func asciiPathMatchesCharacterPath() {
        // A fixed seed: 20,000 random lines over an alphabet rich in separators and joiners.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return state
        }
        let alphabet = Array("aZz09 '-'--.,!?\t\r\nQq\"()_;:Mm'")
        for _ in 0..<20_000 {
            let length = Int(next() % 40)
            let text = String((0..<length).map { _ in alphabet[Int(next() % UInt64(alphabet.count))] })
            #expect(WordTokenizer.asciiWords(in: text) == WordTokenizer.characterWords(in: text), "\(text.debugDescription)")
            #expect(WordTokenizer.sortedWords(in: text) == WordTokenizer.words(in: text).sorted(), "\(text.debugDescription)")
        }
        #expect(WordTokenizer.asciiWords(in: "café") == nil)
    }

    @Test("Sorted words are the distinct words in order, repeats dropped, in any script")
    func sortedWords() {
        #expect(WordTokenizer.sortedWords(in: "b a b c a a") == ["a", "b", "c"])
        #expect(WordTokenizer.sortedWords(in: "Été été ÉTÉ café") == ["café", "été"])
        #expect(WordTokenizer.sortedWords(in: "one") == ["one"])
        #expect(WordTokenizer.sortedWords(in: " ,. ").isEmpty)
    }
}
