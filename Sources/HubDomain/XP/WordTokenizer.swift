/// Splits a line into words for vocabulary counting: maximal runs of letters, digits and
/// in-word apostrophes or hyphens, lowercased. Scripts written without spaces (Japanese,
/// Chinese) count a run as one word — a documented simplification.
public enum WordTokenizer {
    /// The distinct words of `text`.
    public static func words(in text: String) -> Set<String> {
        var words = Set<String>()
        var current = ""
        func flush() {
            let trimmed = current.trimmingJoiners()
            if !trimmed.isEmpty { words.insert(trimmed.lowercased()) }
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
