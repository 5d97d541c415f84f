/// Helpers for HTTP header fields whose value is a comma-separated list of tokens
/// (RFC 9110 §5.6.1), such as `Connection`, `Upgrade` and `Sec-WebSocket-Protocol`.
///
/// A field may be repeated; its values then form one list. Elements are trimmed of optional
/// whitespace (space and horizontal tab) and empty elements are ignored, so `"keep-alive, Upgrade"`,
/// `"Upgrade,"` and two separate `Connection` lines all work. Quoted strings are not understood:
/// use these helpers only for fields whose elements are plain tokens.
public enum HTTPHeaderTokens {
    /// The non-empty, trimmed elements of all `values`, in order.
    public static func tokens(in values: some Sequence<String>) -> [Substring] {
        var result: [Substring] = []
        for value in values {
            for element in value.split(separator: ",", omittingEmptySubsequences: false) {
                let trimmed = trimmingWhitespace(element)
                if !trimmed.isEmpty {
                    result.append(trimmed)
                }
            }
        }
        return result
    }

    /// Whether any element of `values` equals `token`, ignoring ASCII case.
    public static func contains(_ values: some Sequence<String>, token: some StringProtocol) -> Bool {
        tokens(in: values).contains { equalsIgnoringASCIICase($0, token) }
    }

    /// Whether `lhs` and `rhs` are equal once ASCII letters are folded to lowercase
    /// (non-ASCII bytes must match exactly).
    public static func equalsIgnoringASCIICase(_ lhs: some StringProtocol, _ rhs: some StringProtocol) -> Bool {
        lhs.utf8.elementsEqual(rhs.utf8) { asciiLowercase($0) == asciiLowercase($1) }
    }

    /// `text` without leading and trailing spaces and horizontal tabs.
    public static func trimmingWhitespace(_ text: some StringProtocol) -> Substring {
        let whole = Substring(text)
        guard let first = whole.firstIndex(where: { $0 != " " && $0 != "\t" }),
              let last = whole.lastIndex(where: { $0 != " " && $0 != "\t" })
        else { return whole[whole.endIndex...] }
        return whole[first...last]
    }

    /// `text` with ASCII letters folded to lowercase.
    public static func asciiLowercased(_ text: some StringProtocol) -> String {
        String(decoding: text.utf8.map(asciiLowercase), as: UTF8.self)
    }

    private static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
