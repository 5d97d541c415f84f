/// A bounded well-formedness check of BCP 47 language tags (RFC 5646 section 2.1), as the
/// profile's languages take them: `en`, `en-US`, `es-MX`, `pt-BR`, `zh-Hans`, `zh-Hans-CN`,
/// `sr-Latn-RS`, `es-419`, `de-CH-1996`, `en-US-x-twain`. Irregular grandfathered tags and
/// extended language subtags are refused; subtags are not looked up in the IANA registry.
enum LanguageTag {
    /// The longest tag accepted (RFC 5646 section 4.4.1 asks implementations to take at least 35).
    static let maxLength = 35

    /// `tag` in canonical case (language lowercase, script title case, region uppercase, the
    /// rest lowercase), or nil when it is not a well-formed tag.
    static func canonical(_ tag: String) -> String? {
        guard (2...maxLength).contains(tag.utf8.count),
              tag.utf8.allSatisfy({ isAlpha($0) || isDigit($0) || $0 == UInt8(ascii: "-") }) else { return nil }
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false).map { String($0).lowercased() }
        guard let language = subtags.first, (2...3).contains(language.utf8.count), language.utf8.allSatisfy(isAlpha) else {
            return nil
        }
        var result = [language]
        var index = 1
        func next() -> String? { index < subtags.count ? subtags[index] : nil }
        if let script = next(), script.utf8.count == 4, script.utf8.allSatisfy(isAlpha) {
            result.append(script.prefix(1).uppercased() + script.dropFirst())
            index += 1
        }
        if let region = next(), (region.utf8.count == 2 && region.utf8.allSatisfy(isAlpha))
            || (region.utf8.count == 3 && region.utf8.allSatisfy(isDigit)) {
            result.append(region.uppercased())
            index += 1
        }
        while let variant = next(), isVariant(variant) {
            result.append(variant)
            index += 1
        }
        while let singleton = next(), singleton.utf8.count == 1, singleton != "x" {
            result.append(singleton)
            index += 1
            var parts = 0
            while let part = next(), (2...8).contains(part.utf8.count) {
                result.append(part)
                index += 1
                parts += 1
            }
            guard parts > 0 else { return nil }
        }
        if next() == "x" {
            result.append("x")
            index += 1
            var parts = 0
            while let part = next(), (1...8).contains(part.utf8.count) {
                result.append(part)
                index += 1
                parts += 1
            }
            guard parts > 0 else { return nil }
        }
        guard index == subtags.count else { return nil }
        return result.joined(separator: "-")
    }

    private static func isVariant(_ subtag: String) -> Bool {
        let bytes = Array(subtag.utf8)
        if (5...8).contains(bytes.count) { return true }
        return bytes.count == 4 && isDigit(bytes[0])
    }

    private static func isAlpha(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
