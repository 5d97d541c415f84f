// Deterministic test data: the same bytes on every run and machine.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SplitMix64: a small seeded generator, so fixtures never depend on the system RNG.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

enum Fixtures {
    static let mebibyte = 1 << 20

    // Words of the chat messages of a language-learning game: mostly ASCII, about one word in
    // eight carries an accented letter, an inverted mark or a typographic symbol.
    private static let asciiWords = [
        "the", "library", "is", "open", "until", "eight", "tonight", "where", "can", "I", "buy",
        "a", "ticket", "for", "train", "please", "repeat", "slowly", "thank", "you", "very", "much",
        "hola", "buenos", "dias", "como", "estas", "bien", "gracias", "donde", "esta", "la",
        "estacion", "bonjour", "merci", "beaucoup", "je", "voudrais", "un", "cafe", "guten", "tag",
        "wie", "geht", "es", "dir", "danke", "schon", "ciao", "grazie", "mille", "prego", "sentence",
        "grammar", "vocabulary", "lesson", "score", "level", "round", "answer", "correct", "again",
    ]
    private static let accentedWords = [
        "café", "niño", "¿dónde", "está?", "mañana", "über", "schön", "Straße", "français", "déjà",
        "naïve", "señor", "€12", "—", "“quote”", "résumé", "piñata", "jalapeño", "açaí", "ok👍",
    ]

    /// One line of chat text, `wordCount` words.
    private static func sentence(_ generator: inout SeededGenerator, wordCount: Int) -> String {
        var words: [String] = []
        words.reserveCapacity(wordCount)
        for _ in 0..<wordCount {
            if Int.random(in: 0..<8, using: &generator) == 0 {
                words.append(accentedWords.randomElement(using: &generator)!)
            } else {
                words.append(asciiWords.randomElement(using: &generator)!)
            }
        }
        return words.joined(separator: " ")
    }

    /// One JSON-ish chat event as the hub relays it.
    private static func event(_ generator: inout SeededGenerator, sequence: Int) -> String {
        let session = Int.random(in: 10_000..<99_999, using: &generator)
        let user = Int.random(in: 1..<5_000, using: &generator)
        let languages = ["es", "fr", "de", "it", "en"]
        let language = languages.randomElement(using: &generator)!
        let text = sentence(&generator, wordCount: Int.random(in: 4..<18, using: &generator))
        let timestamp = 1_732_312_345_000 + sequence * 137 + Int.random(in: 0..<100, using: &generator)
        let score = Int.random(in: 0..<1_000, using: &generator)
        return #"{"type":"message","session":"s-\#(session)","seq":\#(sequence),"from":"user_\#(user)","#
            + #""lang":"\#(language)","text":"\#(text)","ts":\#(timestamp),"score":\#(score),"#
            + #""tags":["chat","round-\#(sequence % 7)"]}"#
    }

    /// A JSON array of chat events, padded with spaces to exactly `size` bytes (valid UTF-8 and
    /// valid JSON).
    static func chatJSON(size: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        var bytes: [UInt8] = Array("[".utf8)
        bytes.reserveCapacity(size)
        var sequence = 0
        while true {
            let next = Array(event(&generator, sequence: sequence).utf8)
            // Room for a separating comma and the closing bracket.
            if bytes.count + next.count + 2 > size { break }
            if sequence > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += next
            sequence += 1
        }
        bytes.append(UInt8(ascii: "]"))
        while bytes.count < size { bytes.append(UInt8(ascii: " ")) }
        return bytes
    }

    /// Text with no ASCII at all: Cyrillic (2 bytes), CJK and kana (3 bytes) and emoji (4 bytes).
    static func multibyteText(size: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        let pieces = ["привет", "спасибо", "図書館", "どこですか", "谢谢你", "火車站", "😀", "🎉", "учитель", "日本語"]
            .map { Array($0.utf8) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        while true {
            let piece = pieces.randomElement(using: &generator)!
            if bytes.count + piece.count > size { break }
            bytes += piece
        }
        // Fill the last few bytes with complete 2-byte letters (and one 3-byte one if odd).
        if (size - bytes.count) % 2 == 1 { bytes += Array("語".utf8) }
        while bytes.count < size { bytes += Array("д".utf8) }
        precondition(bytes.count == size)
        return bytes
    }

    /// A page-aligned copy of `bytes` that the benchmark may mutate; never freed.
    static func mutableCopy(of bytes: [UInt8]) -> UnsafeMutableRawBufferPointer {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 4096)
        buffer.copyBytes(from: bytes)
        return buffer
    }

    /// Prints what the fixtures contain to standard error when CODEC_FIXTURE_STATS is set.
    static func reportIfRequested() {
        guard getenv("CODEC_FIXTURE_STATS") != nil else { return }
        func describe(_ name: String, _ bytes: [UInt8]) {
            let nonASCII = bytes.filter { $0 >= 0x80 }.count
            let sequences = bytes.filter { $0 >= 0xC0 }.count
            let text = String(decoding: bytes, as: UTF8.self)
            let line = "\(name): \(bytes.count) bytes, \(nonASCII) non-ASCII bytes "
                + "(\(Double(nonASCII * 10_000 / bytes.count) / 100) %), \(sequences) multibyte characters "
                + "(one per \(sequences > 0 ? bytes.count / sequences : 0) bytes), \(text.unicodeScalars.count) scalars\n"
            printFixtureReport(line)
        }
        describe("UTF-8 ASCII-heavy", chatJSON(size: mebibyte, seed: 1))
        describe("UTF-8 multibyte", multibyteText(size: mebibyte, seed: 2))
        describe("Deflate text", chatJSON(size: 16 * 1024, seed: 3))
        printFixtureReport(String(decoding: chatJSON(size: 16 * 1024, seed: 3).prefix(400), as: UTF8.self) + "\n")
    }
}

/// Writes `text` to file descriptor 2 (the fixture report; never used while measuring).
func printFixtureReport(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
        _ = write(2, bytes.baseAddress, bytes.count)
    }
}
