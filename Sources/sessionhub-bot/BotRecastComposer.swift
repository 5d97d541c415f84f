import HubDomain

/// Makes a bot's corrections (recasts) of other players' lines. The bot does not know the
/// language, so its corrections are language-neutral but plausible edits: a reordering of the
/// sentence's two clauses for `sentence_structure`, and a tidy-up of capitalisation, spacing and
/// the closing punctuation otherwise. A trailing counter tag such as `(7)` stays at the end.
enum BotRecastComposer {
    /// A correction to send in a `recast`.
    struct Correction: Sendable, Equatable {
        /// The corrected line, counter tag kept.
        var correctedText: String
        /// Why, naming the issue types.
        var explanation: String
        /// Sorted, no duplicates, never empty.
        var issueTypes: [RecastIssueType]
    }

    /// One or two distinct issue types, sorted, chosen with `generator`.
    static func issueTypes(using generator: inout some RandomNumberGenerator) -> [RecastIssueType] {
        let all = RecastIssueType.allCases
        var chosen: Set<RecastIssueType> = [all[Int.random(in: 0..<all.count, using: &generator)]]
        if Bool.random(using: &generator) { chosen.insert(all[Int.random(in: 0..<all.count, using: &generator)]) }
        return chosen.sorted()
    }

    /// The correction of `text` for `issueTypes` (which must not be empty).
    static func correction(of text: String, issueTypes: [RecastIssueType]) -> Correction {
        let types = Array(Set(issueTypes)).sorted()
        let (body, tag) = splitTag(text)
        var corrected = tidy(body)
        var reasons: [String] = []
        if types.contains(.sentenceStructure), let swapped = swapClauses(corrected) {
            corrected = swapped
            reasons.append("put the second part first")
        }
        if types.contains(where: { $0 != .sentenceStructure }) || reasons.isEmpty {
            reasons.append(types.contains(.vocabulary) || types.contains(.naturalness) ? "say it like a native speaker would" : "mind the capital letter and the punctuation")
        }
        let names = types.map(\.rawValue).joined(separator: ", ")
        let full = [corrected, tag].filter { !$0.isEmpty }.joined(separator: " ")
        return Correction(correctedText: full.isEmpty ? text : full, explanation: "\(names): \(reasons.joined(separator: "; "))",
                          issueTypes: types.isEmpty ? [.grammar] : types)
    }

    /// `("Hola.", "(7)")` for `"Hola. (7)"`; the tag is empty when there is none.
    private static func splitTag(_ text: String) -> (String, String) {
        let trimmed = text.trimmingSpaces
        guard trimmed.hasSuffix(")"), let open = trimmed.lastIndex(of: "(") else { return (trimmed, "") }
        let inside = trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)]
        guard !inside.isEmpty, inside.allSatisfy(\.isNumber) else { return (trimmed, "") }
        return (String(trimmed[..<open]).trimmingSpaces, String(trimmed[open...]))
    }

    /// Single spaces, a capital first letter, closing punctuation.
    private static func tidy(_ text: String) -> String {
        var result = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        if let first = result.first, first.isLowercase {
            result = first.uppercased() + result.dropFirst()
        }
        if let last = result.last, !last.isPunctuation { result.append(".") }
        return result
    }

    /// `"B, a."` for `"A, b."` when the text is one sentence with exactly one comma.
    private static func swapClauses(_ text: String) -> String? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        var first = String(parts[0]).trimmingSpaces
        var second = String(parts[1]).trimmingSpaces
        guard !first.isEmpty, !second.isEmpty else { return nil }
        var closing = ""
        while let last = second.last, last.isPunctuation, last != "\"" { closing = String(last) + closing; second.removeLast() }
        let spacedClosing = second.last?.isWhitespace == true  // French typography: `plaît ?`
        second = second.trimmingSpaces
        let sentenceMarks: Set<Character> = [".", "?", "!", "¿", "¡", ";", ":"]
        guard !second.isEmpty, !first.contains(where: sentenceMarks.contains), !second.contains(where: sentenceMarks.contains) else {
            return nil
        }
        if let head = first.first, head.isUppercase, !(first.dropFirst().first?.isUppercase ?? false) {
            first = head.lowercased() + first.dropFirst()
        }
        if let head = second.first, head.isLowercase { second = head.uppercased() + second.dropFirst() }
        return "\(second), \(first)\(closing.isEmpty ? "." : (spacedClosing ? " " : "") + closing)"
    }
}

private extension String {
    var trimmingSpaces: String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }
}
