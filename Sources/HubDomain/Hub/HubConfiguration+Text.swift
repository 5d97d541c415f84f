extension HubConfiguration {
    /// `text` without surrounding whitespace, checked by the rules every line and correction
    /// follows, wherever it comes from (a live session, or a session an app saved on its own).
    /// - Throws: ``HubError`` `empty_text` when nothing is left (unless `allowEmpty`),
    ///   `text_too_long` past ``maxTextLength`` characters; the message names `field`.
    public func validatedText(_ text: String, field: String, allowEmpty: Bool = false) throws(HubError) -> String {
        let trimmed = text.trimmingWhitespace()
        if trimmed.isEmpty && !allowEmpty { throw HubError(.emptyText, "\(field) must not be empty") }
        // A character is at least one byte: most texts are judged by their byte count alone.
        guard trimmed.utf8.count <= maxTextLength || trimmed.count <= maxTextLength else {
            throw HubError(.textTooLong, "\(field) is longer than \(maxTextLength) characters")
        }
        return trimmed
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        var characters = Substring(self)
        while let first = characters.first, first.isWhitespace { characters = characters.dropFirst() }
        while let last = characters.last, last.isWhitespace { characters = characters.dropLast() }
        return characters.startIndex == startIndex && characters.endIndex == endIndex ? self : String(characters)
    }
}
