/// Splits a line into words for vocabulary counting: maximal runs of letters, digits and
/// in-word apostrophes or hyphens, lowercased. Scripts written without spaces (Japanese,
/// Chinese) count a run as one word — a documented simplification.
public enum WordTokenizer {
    /// The distinct words of `text`.
    public static func words(in text: String) -> Set<String> {
        Set(wordList(in: text))
    }

    /// The distinct words of `text`, sorted (no hashing: a line's few words are sorted and
    /// their repeats dropped).
    public static func sortedWords(in text: String) -> [String] {
        var words = wordList(in: text)
        guard words.count > 1 else { return words }
        words.sort()
        var kept = 1
        for index in 1..<words.count where words[index] != words[kept - 1] {
            words.swapAt(kept, index)
            kept += 1
        }
        words.removeLast(words.count - kept)
        return words
    }

    /// Every word of `text` in order, repeats included.
    static func wordList(in text: String) -> [String] {
        asciiWords(in: text) ?? characterWords(in: text)
    }

    /// The words of all-ASCII text in order, read byte by byte (no grapheme breaking); nil when
    /// `text` has a byte outside ASCII (or its bytes are not contiguous).
    static func asciiWords(in text: String) -> [String]? {
        text.utf8.withContiguousStorageIfAvailable(asciiWords(in:)) ?? nil
    }

    private static func asciiWords(in bytes: UnsafeBufferPointer<UInt8>) -> [String]? {
        var words: [String] = []
        var start = -1  // first byte of the current run, -1 when none
        var word: [UInt8] = []
        func flush(_ end: Int) {
            guard start >= 0 else { return }
            var last = end
            // Trailing apostrophes and hyphens are not part of the word.
            while last > start, bytes[last - 1] == UInt8(ascii: "'") || bytes[last - 1] == UInt8(ascii: "-") { last -= 1 }
            if last > start {
                word.removeAll(keepingCapacity: true)
                for byte in bytes[start..<last] {
                    word.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte)
                }
                words.append(String(decoding: word, as: UTF8.self))
            }
            start = -1
        }
        for index in bytes.indices {
            let byte = bytes[index]
            guard byte < 0x80 else { return nil }
            let isAlphanumeric = (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            if isAlphanumeric {
                if start < 0 { start = index }
            } else if (byte == UInt8(ascii: "'") || byte == UInt8(ascii: "-")), start >= 0 {
                continue
            } else {
                flush(index)
            }
        }
        flush(bytes.count)
        return words
    }

    /// The words of any text in order, character by character.
    static func characterWords(in text: String) -> [String] {
        var words: [String] = []
        var current = ""
        func flush() {
            let trimmed = current.trimmingJoiners()
            if !trimmed.isEmpty { words.append(trimmed.lowercased()) }
            current = ""
        }
        for character in text {
            if character.isLetter || character.isNumber {
                current.append(character)
            } else if (character == "'" || character == "’" || character == "-"), !current.isEmpty {
                current.append(character)
            } else {
                flush()
            }
        }
        flush()
        return words
    }
}

extension String {
    fileprivate func trimmingJoiners() -> String {
        var scalars = Substring(self)
        while let last = scalars.last, last == "'" || last == "’" || last == "-" { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
